"""The synthetic census: deterministic, Adult-like, with exactly one Karen.

Reference marginals are those of the UCI Adult training set (32 561 rows):
HS-grad 32.3 %, Some-college 22.4 %, Bachelors 16.4 %; Male 66.9 %;
capital_gain == 0 for 91.7 %; income > 50K for 24.1 %; mean age 38.6.
"""

import dplab
import numpy as np
import pytest
from dplab.census import KAREN, KAREN_ROW


@pytest.fixture(scope="module")
def census():
    return dplab.load_census()


def test_size_columns_and_types(census):
    assert len(census) == 5000
    assert census.columns == [
        "name",
        "age",
        "education",
        "education_num",
        "occupation",
        "sex",
        "capital_gain",
        "hours_per_week",
        "income_over_50k",
    ]
    assert census["income_over_50k"].dtype == bool
    assert census["age"].dtype.kind == "i"


def test_deterministic_given_seed():
    a, b, c = dplab.load_census(seed=3), dplab.load_census(seed=3), dplab.load_census(seed=4)
    for col in a.columns:
        assert np.array_equal(a[col], b[col])
    assert not np.array_equal(a["age"], c["age"])


def test_exactly_one_karen_at_fixed_row_with_documented_record(census):
    assert int(np.sum(census["name"] == "Karen")) == 1
    assert census["name"][KAREN_ROW] == "Karen"
    assert census.row("Karen") == KAREN
    assert KAREN["age"] == 43 and KAREN["education"] == "Masters" and KAREN["income_over_50k"]
    small = dplab.load_census(n=5)
    assert small["name"][4] == "Karen" and int(np.sum(small["name"] == "Karen")) == 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_karen_for_other_seeds(seed):
    assert int(np.sum(dplab.load_census(seed=seed)["name"] == "Karen")) == 1


def test_differential_attack_reveals_karen(census):
    # Slide 3: count over everybody minus count over everybody but Karen = Karen's value.
    diff = census["income_over_50k"].sum() - census.without("Karen")["income_over_50k"].sum()
    assert diff == int(KAREN["income_over_50k"])


def test_adult_like_marginals(census):
    age = census["age"]
    assert age.min() >= 17 and age.max() <= 90
    assert 35 < age.mean() < 42 and np.median(age) < age.mean()  # right-skewed
    edu = census["education"]
    assert list(np.unique(census["education_num"])) == list(range(1, 17))
    assert np.all(np.array(dplab.EDUCATION_LEVELS)[census["education_num"] - 1] == edu)
    assert 0.29 < np.mean(edu == "HS-grad") < 0.36
    assert 0.19 < np.mean(edu == "Some-college") < 0.26
    assert 0.13 < np.mean(edu == "Bachelors") < 0.20
    assert len(set(census["occupation"])) == 14
    assert 0.63 < np.mean(census["sex"] == "Male") < 0.71
    gain = census["capital_gain"]
    assert 0.89 < np.mean(gain == 0) < 0.95 and gain.max() == 99_999 and gain.min() == 0
    assert 0.40 < np.mean(census["hours_per_week"] == 40) < 0.55
    assert 0.21 < census["income_over_50k"].mean() < 0.27


def test_income_rises_with_education_and_age(census):
    y, edu, age = census["income_over_50k"], census["education_num"], census["age"]
    assert y[edu >= 13].mean() > 2 * y[edu <= 9].mean()
    assert y[(age >= 35) & (age < 60)].mean() > 2 * y[age < 25].mean()


def test_logistic_regression_beats_majority_clearly(census):
    X, y = dplab.census_features(census)
    theta = dplab.train_logistic(X, y)
    assert dplab.majority_baseline(y) == pytest.approx(0.76, abs=0.02)
    assert dplab.accuracy(theta, X, y) >= 0.80


def test_table_helpers(census):
    text = census.head(3)
    assert len(text.splitlines()) == 4 and "education_num" in text
    assert "5000 filas" in census.describe()
    women = census.where(census["sex"] == "Female")
    assert len(women) == int(np.sum(census["sex"] == "Female"))
    assert len(census.without("Karen")) == 4999
    with pytest.raises(ValueError, match="Nadie"):
        census.without("Nadie")
    with pytest.raises(KeyError, match="salary"):
        census["salary"]
    with pytest.raises(ValueError, match="mask"):
        census.where([True, False])
    column = census["age"]
    with pytest.raises(ValueError):
        column[0] = 200  # read-only: the cached census cannot be changed by accident
