"""The suite's groups hold: under `make test` (`-n 3 --dist loadgroup`) every test of one
`xdist_group` runs on one worker. The process tests that start several servers each (group
`cluster`, `tournament_cluster`) count on running one at a time, and a browser module's
tests on sharing one server and one browser. pytest-xdist marks a grouped test by adding
`@group` to its id; a pytest it cannot do that on (pytest 9 with xdist 3.8) ignores every
group without a word, and this test is how the suite notices."""

from __future__ import annotations

import pytest

from tests.conftest import unavailable

pytestmark = pytest.mark.xdist_group("suite_groups")


def test_a_grouped_test_runs_in_its_group(request: pytest.FixtureRequest) -> None:
    # a worker of `--dist loadgroup` (xdist sets `loadgroup` in each worker's options)
    if not getattr(request.config.option, "loadgroup", False):
        unavailable("groups apply only under `-n N --dist loadgroup`, as `make test` runs")
    assert request.node.nodeid.endswith("@suite_groups"), request.node.nodeid


def test_a_browser_module_is_one_group(request: pytest.FixtureRequest) -> None:
    """The browser tests' groups are their modules' (tests/frontend/conftest.py marks them
    before xdist reads the marks)."""
    browser = [i for i in request.session.items if i.get_closest_marker("browser")]
    if not browser:
        unavailable("no browser test collected: run it with tests/frontend")
    for item in browser:
        groups = {m.args[0] for m in item.iter_markers("xdist_group")}
        assert groups == {f"browser-{item.path.stem}"}, (item.nodeid, groups)
