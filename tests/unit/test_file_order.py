"""The order the suite's files go out to the workers (tests/support/file_order.py)."""

from __future__ import annotations

from types import SimpleNamespace

from tests.support import file_order


def _items(*nodeids: str) -> list:
    return [SimpleNamespace(nodeid=n) for n in nodeids]


def test_the_longest_file_goes_first_and_a_files_tests_keep_their_order():
    items = _items(
        "tests/unit/test_a.py::one",
        "tests/browser/test_b.py::one",
        "tests/unit/test_a.py::two",
        "tests/browser/test_b.py::two",
        "tests/unit/test_c.py::one",
    )
    table = {"tests/unit/test_a.py": 3.0, "tests/browser/test_b.py": 90.0, "tests/unit/test_c.py": 12.0}
    order = [i.nodeid for i in file_order.longest_first(items, table)]
    assert order == [
        "tests/browser/test_b.py::one",
        "tests/browser/test_b.py::two",
        "tests/unit/test_c.py::one",
        "tests/unit/test_a.py::one",
        "tests/unit/test_a.py::two",
    ]
    assert sorted(order) == sorted(i.nodeid for i in items)  # every test, once


def test_a_file_not_yet_measured_counts_as_its_folders_default():
    assert file_order.seconds_of("tests/browser/test_new.py", {}) == 60.0
    assert file_order.seconds_of("tests/unit/test_new.py", {}) == file_order.OTHER_SECONDS
    assert file_order.seconds_of("tests/unit/test_new.py", {"tests/unit/test_new.py": 7.5}) == 7.5
    items = _items("tests/unit/test_known.py::t", "tests/browser/test_new.py::t")
    order = file_order.longest_first(items, {"tests/unit/test_known.py": 20.0})
    assert [i.nodeid for i in order] == ["tests/browser/test_new.py::t", "tests/unit/test_known.py::t"]


def test_a_junit_report_sums_each_files_cases_a_class_included(tmp_path):
    report = tmp_path / "r.xml"
    report.write_text(
        """<testsuites><testsuite>
        <testcase classname="tests.unit.test_file_order" name="a" time="1.5"/>
        <testcase classname="tests.unit.test_file_order" name="b" time="2.25"/>
        <testcase classname="tests.unit.test_file_order.TestSome" name="c" time="1"/>
        <testcase classname="tests.support.file_order" name="d" time="4"/>
        </testsuite></testsuites>""",
        encoding="utf-8",
    )
    assert file_order.from_junit(report) == {
        "tests/unit/test_file_order.py": 4.75,
        "tests/support/file_order.py": 4.0,
    }
