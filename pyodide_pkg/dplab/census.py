"""A synthetic census with the structure of the UCI Adult data set.

Near & Abuah's book works on the Adult data set (1994 US Census extract). We
cannot ship real people's records to a lecture hall, so :func:`load_census`
draws a synthetic table whose marginals look like Adult's:

* ``age``: 17..90, right-skewed (mean about 38), as in Adult.
* ``education`` / ``education_num``: the 16 Adult levels with Adult's
  frequencies (HS-grad 32 %, Some-college 22 %, Bachelors 16 %, ...).
* ``occupation``: Adult's 14 occupations, tilted by education.
* ``sex``: about 67 % ``"Male"``.
* ``hours_per_week``: 1..99, about half exactly 40.
* ``income_over_50k``: about 24 % True, drawn from a logistic model that
  rises with age then flattens, and rises steeply with education_num.
* ``capital_gain``: about 92 % zero, a log-normal body up to tens of
  thousands, and a few people at Adult's cap of 99 999 -- the heavy tail that
  makes sums have unbounded sensitivity (chapter 3 of the deck).
* ``name``: a first name, so that the differential attack on "Karen" reads
  naturally. Exactly one person is named ``"Karen"``; see :data:`KAREN`.

Nothing here is private: it is all synthetic, and the generator is
deterministic given ``seed``.
"""

from __future__ import annotations

import numpy as np

from ._special import sigmoid
from ._validate import check_integer

__all__ = ["Census", "load_census", "EDUCATION_LEVELS", "OCCUPATIONS", "KAREN", "KAREN_ROW"]

# The 16 Adult education levels, ordered by education_num (1..16), and their
# counts in the Adult training set (32 561 rows), used as sampling weights.
EDUCATION_LEVELS = (
    "Preschool",
    "1st-4th",
    "5th-6th",
    "7th-8th",
    "9th",
    "10th",
    "11th",
    "12th",
    "HS-grad",
    "Some-college",
    "Assoc-voc",
    "Assoc-acdm",
    "Bachelors",
    "Masters",
    "Prof-school",
    "Doctorate",
)
_EDUCATION_COUNTS = np.array(
    [51, 168, 333, 646, 514, 933, 1175, 433, 10501, 7291, 1382, 1067, 5355, 1723, 576, 413],
    dtype=float,
)

# Adult's 14 occupations, their counts in Adult (rows with "?" dropped), and a
# "skill" score in [-1, 1] that tilts each towards more or less education.
OCCUPATIONS = (
    "Prof-specialty",
    "Craft-repair",
    "Exec-managerial",
    "Adm-clerical",
    "Sales",
    "Other-service",
    "Machine-op-inspct",
    "Transport-moving",
    "Handlers-cleaners",
    "Farming-fishing",
    "Tech-support",
    "Protective-serv",
    "Priv-house-serv",
    "Armed-Forces",
)
_OCCUPATION_COUNTS = np.array(
    [4140, 4099, 4066, 3770, 3650, 3295, 2002, 1597, 1370, 994, 928, 649, 149, 9], dtype=float
)
_OCCUPATION_SKILL = np.array([1.0, -0.4, 0.8, 0.0, 0.1, -0.7, -0.6, -0.5, -0.8, -0.6, 0.4, 0.0, -0.9, 0.0])

_FEMALE_NAMES = (
    "Mary",
    "Patricia",
    "Linda",
    "Barbara",
    "Elizabeth",
    "Jennifer",
    "Maria",
    "Susan",
    "Margaret",
    "Dorothy",
    "Lisa",
    "Nancy",
    "Betty",
    "Sandra",
    "Donna",
    "Carol",
    "Ruth",
    "Sharon",
    "Michelle",
    "Laura",
    "Sarah",
    "Kimberly",
    "Deborah",
    "Jessica",
    "Shirley",
    "Cynthia",
    "Angela",
    "Melissa",
    "Brenda",
    "Amy",
    "Anna",
    "Rebecca",
    "Virginia",
    "Kathleen",
    "Pamela",
    "Martha",
    "Debra",
    "Amanda",
    "Stephanie",
    "Carolyn",
    "Christine",
    "Janet",
    "Catherine",
    "Frances",
    "Ann",
    "Joyce",
    "Diane",
    "Alice",
    "Julie",
    "Heather",
    "Teresa",
    "Doris",
    "Gloria",
    "Evelyn",
    "Cheryl",
    "Mildred",
    "Katherine",
    "Joan",
    "Ashley",
    "Judith",
    "Rose",
    "Janice",
    "Kelly",
    "Nicole",
    "Judy",
    "Christina",
    "Kathy",
    "Theresa",
    "Beverly",
    "Denise",
    "Tammy",
    "Irene",
    "Jane",
    "Lori",
    "Rachel",
    "Marilyn",
    "Andrea",
    "Louise",
    "Sara",
    "Anne",
    "Jacqueline",
    "Wanda",
    "Bonnie",
    "Julia",
    "Ruby",
    "Lois",
    "Tina",
    "Phyllis",
    "Norma",
    "Paula",
    "Diana",
    "Annie",
    "Lillian",
    "Emily",
    "Robin",
    "Peggy",
    "Crystal",
    "Gladys",
    "Rita",
    "Dawn",
    "Connie",
    "Florence",
    "Tracy",
    "Edna",
    "Tiffany",
    "Carmen",
    "Rosa",
    "Cindy",
    "Grace",
    "Wendy",
    "Victoria",
    "Edith",
)
_MALE_NAMES = (
    "James",
    "John",
    "Robert",
    "Michael",
    "William",
    "David",
    "Richard",
    "Charles",
    "Joseph",
    "Thomas",
    "Christopher",
    "Daniel",
    "Paul",
    "Mark",
    "Donald",
    "George",
    "Kenneth",
    "Steven",
    "Edward",
    "Brian",
    "Ronald",
    "Anthony",
    "Kevin",
    "Jason",
    "Matthew",
    "Gary",
    "Timothy",
    "Jose",
    "Larry",
    "Jeffrey",
    "Frank",
    "Scott",
    "Eric",
    "Stephen",
    "Andrew",
    "Raymond",
    "Gregory",
    "Joshua",
    "Jerry",
    "Dennis",
    "Walter",
    "Patrick",
    "Peter",
    "Harold",
    "Douglas",
    "Henry",
    "Carl",
    "Arthur",
    "Ryan",
    "Roger",
    "Joe",
    "Juan",
    "Jack",
    "Albert",
    "Jonathan",
    "Justin",
    "Terry",
    "Gerald",
    "Keith",
    "Samuel",
    "Willie",
    "Ralph",
    "Lawrence",
    "Nicholas",
    "Roy",
    "Benjamin",
    "Bruce",
    "Brandon",
    "Adam",
    "Harry",
    "Fred",
    "Wayne",
    "Billy",
    "Steve",
    "Louis",
    "Jeremy",
    "Aaron",
    "Randy",
    "Howard",
    "Eugene",
    "Carlos",
    "Russell",
    "Bobby",
    "Victor",
    "Martin",
    "Ernest",
    "Phillip",
    "Todd",
    "Jesse",
    "Craig",
    "Alan",
    "Shawn",
    "Clarence",
    "Sean",
    "Philip",
    "Chris",
    "Johnny",
    "Earl",
    "Jimmy",
    "Antonio",
    "Danny",
    "Bryan",
    "Tony",
    "Luis",
    "Mike",
    "Stanley",
    "Leonard",
    "Nathan",
    "Dale",
    "Manuel",
    "Rodney",
    "Curtis",
)

#: Row index of Karen (when ``n > KAREN_ROW``; otherwise she is the last row).
KAREN_ROW = 17

#: Karen's record, fixed, so that the deck's differential attack has a known answer.
KAREN = {
    "name": "Karen",
    "age": 43,
    "education": "Masters",
    "education_num": 14,
    "occupation": "Prof-specialty",
    "sex": "Female",
    "capital_gain": 0,
    "hours_per_week": 45,
    "income_over_50k": True,
}

_NUMERIC_FORMATS = {"age": "d", "education_num": "d", "capital_gain": "d", "hours_per_week": "d"}


class Census:
    """A thin, read-only table over numpy columns (pandas is not loaded in the deck).

    Parameters
    ----------
    columns : dict of str to array_like
        Equal-length columns, kept in the given order.

    Examples
    --------
    >>> census = load_census()
    >>> int(census["income_over_50k"].sum() - census.without("Karen")["income_over_50k"].sum())
    1
    """

    def __init__(self, columns: dict):
        if not columns:
            raise ValueError("columns must contain at least one column, got none")
        data = {}
        lengths = set()
        for key, values in columns.items():
            arr = np.array(values)  # a private copy
            if arr.ndim != 1:
                raise ValueError(f"column {key!r} must be one-dimensional, got shape {arr.shape}")
            arr.setflags(write=False)
            data[str(key)] = arr
            lengths.add(arr.shape[0])
        if len(lengths) != 1:
            raise ValueError(f"columns must all have the same length, got lengths {sorted(lengths)}")
        self._data = data

    @property
    def columns(self) -> list:
        """Column names, in order."""
        return list(self._data)

    def __len__(self) -> int:
        return next(iter(self._data.values())).shape[0]

    def __getitem__(self, column: str) -> np.ndarray:
        if not isinstance(column, str):
            raise TypeError(f"column must be a str, got {column!r} of type {type(column).__name__}")
        try:
            return self._data[column]
        except KeyError:
            raise KeyError(f"no column {column!r}; columns are {self.columns}") from None

    def __contains__(self, column) -> bool:
        return column in self._data

    def where(self, mask) -> Census:
        """The rows where ``mask`` (a boolean array of length ``len(self)``) is True."""
        mask = np.asarray(mask)
        if mask.dtype != bool or mask.shape != (len(self),):
            raise ValueError(
                f"mask must be a boolean array of shape ({len(self)},), "
                f"got dtype {mask.dtype} and shape {mask.shape}"
            )
        return Census({k: v[mask] for k, v in self._data.items()})

    def without(self, name: str) -> Census:
        """The neighbouring table: every row whose ``name`` is ``name`` removed."""
        if name not in set(self._data["name"].tolist()):
            raise ValueError(f"name {name!r} is not in the census")
        return self.where(self._data["name"] != name)

    def row(self, name: str) -> dict:
        """The record of the one person called ``name`` (ValueError if not exactly one)."""
        idx = np.flatnonzero(self._data["name"] == name)
        if idx.size != 1:
            raise ValueError(f"name {name!r} must match exactly one row, got {idx.size}")
        return {k: v[idx[0] : idx[0] + 1].tolist()[0] for k, v in self._data.items()}

    def head(self, k: int = 5) -> str:
        """The first ``k`` rows as an aligned text table."""
        k = check_integer(k, "k", minimum=0)
        cols = self.columns
        cells = [[str(v) for v in self._data[c][:k].tolist()] for c in cols]
        widths = [max([len(c)] + [len(s) for s in col]) for c, col in zip(cols, cells, strict=True)]
        lines = ["  ".join(c.rjust(w) for c, w in zip(cols, widths, strict=True))]
        for i in range(min(k, len(self))):
            lines.append("  ".join(col[i].rjust(w) for col, w in zip(cells, widths, strict=True)))
        return "\n".join(lines)

    def describe(self) -> str:
        """A short summary: numeric columns (mean, std, min, max), and the rest (top values)."""
        lines = [f"{len(self)} filas, {len(self.columns)} columnas"]
        for c in self.columns:
            v = self._data[c]
            if v.dtype == bool:
                lines.append(f"  {c:<16} True: {v.mean():.1%}")
            elif v.dtype.kind in "iuf":
                lines.append(
                    f"  {c:<16} media {v.mean():10.1f}  desv. {v.std():10.1f}  "
                    f"min {v.min():>7}  max {v.max():>7}"
                )
            else:
                values, counts = np.unique(v, return_counts=True)
                order = np.argsort(-counts, kind="stable")[:3]
                top = ", ".join(f"{values[i]} ({counts[i] / len(v):.0%})" for i in order)
                lines.append(f"  {c:<16} {len(values)} valores; {top}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Census: {len(self)} rows x {len(self.columns)} columns>\n{self.head(5)}"


def income_probability(age, education_num, sex_male):
    """P(income > 50K) in the generating model.

    ``logit = -4.5 + 0.65 (education_num - 10) + 2.9 a(age) + 0.8 male``, with
    ``a(age) = 1 - exp(-(age - 17) / 12)``: rising with age, flat after ~50.
    The coefficients were chosen (not fitted to anything real) so that about
    24 % earn more than 50K, as in Adult, and so that a logistic regression on
    (age, education_num) beats the majority class clearly (~0.83 vs ~0.76).
    """
    age = np.asarray(age, dtype=float)
    edu = np.asarray(education_num, dtype=float)
    age_effect = 1.0 - np.exp(-(age - 17.0) / 12.0)
    logit = -4.5 + 0.65 * (edu - 10.0) + 2.9 * age_effect + 0.8 * np.asarray(sex_male, float)
    return sigmoid(logit)


def load_census(n: int = 5000, seed: int = 0) -> Census:
    """Draw the deck's synthetic, Adult-like census.

    Parameters
    ----------
    n : int, default 5000
        Number of people, >= 1.
    seed : int, default 0
        Seed (>= 0) of the generator; the table is a deterministic function of
        ``(n, seed)``. Not a privacy parameter: the data are synthetic.

    Returns
    -------
    Census
        Columns ``name, age, education, education_num, occupation, sex,
        capital_gain, hours_per_week, income_over_50k``. Row ``KAREN_ROW``
        (or the last row if ``n <= KAREN_ROW``) is Karen, with the record
        :data:`KAREN` (43, Masters, Prof-specialty, Female, income > 50K);
        nobody else is named Karen.

    Raises
    ------
    TypeError, ValueError
        If ``n`` is not an integer >= 1 or ``seed`` not an integer >= 0.
    """
    n = check_integer(n, "n", minimum=1)
    seed = check_integer(seed, "seed", minimum=0)
    rng = np.random.default_rng(seed)

    # Age: 17 + Gamma(2.5, 8.6), mean ~ 38.6 and sd ~ 13.6 as in Adult, capped at 90.
    age = np.minimum(17 + np.floor(rng.gamma(2.5, 8.6, size=n)), 90).astype(np.int64)

    education_num = rng.choice(
        np.arange(1, 17), size=n, p=_EDUCATION_COUNTS / _EDUCATION_COUNTS.sum()
    ).astype(np.int64)
    education = np.array(EDUCATION_LEVELS)[education_num - 1]

    male = rng.random(n) < 0.67

    # Occupation: Adult's frequencies, tilted by education via a "skill" score.
    tilt = np.exp(0.35 * np.outer(education_num - 10.0, _OCCUPATION_SKILL))
    weights = _OCCUPATION_COUNTS * tilt
    cumulative = np.cumsum(weights, axis=1)
    cumulative /= cumulative[:, -1:]
    occ_index = (rng.random((n, 1)) > cumulative).sum(axis=1)  # inverse-CDF, row-wise
    occupation = np.array(OCCUPATIONS)[np.minimum(occ_index, len(OCCUPATIONS) - 1)]

    # Hours per week: about half exactly 40, otherwise spread around 40.
    spread = np.rint(rng.normal(40 + 3 * male, 12, size=n))
    hours = np.where(rng.random(n) < 0.47, 40, np.clip(spread, 1, 99)).astype(np.int64)

    income = rng.random(n) < income_probability(age, education_num, male)

    # Capital gain: mostly 0; a log-normal body (median ~5 500); Adult's 99 999
    # cap for a few high earners. High earners report gains more often.
    has_gain = rng.random(n) < np.where(income, 0.20, 0.045)
    body = np.clip(np.rint(rng.lognormal(8.6, 0.85, size=n)), 100, 99_999)
    capped = income & (rng.random(n) < 0.10)
    capital_gain = np.where(has_gain, np.where(capped, 99_999, body), 0).astype(np.int64)

    female_names = np.array(_FEMALE_NAMES)
    male_names = np.array(_MALE_NAMES)
    name = np.where(
        male,
        male_names[rng.integers(0, len(male_names), size=n)],
        female_names[rng.integers(0, len(female_names), size=n)],
    ).astype(object)

    columns = {
        "name": name,
        "age": age,
        "education": education.astype(object),
        "education_num": education_num,
        "occupation": occupation.astype(object),
        "sex": np.where(male, "Male", "Female").astype(object),
        "capital_gain": capital_gain,
        "hours_per_week": hours,
        "income_over_50k": income,
    }
    row = min(KAREN_ROW, n - 1)
    for key, value in KAREN.items():
        columns[key][row] = value
    return Census(columns)
