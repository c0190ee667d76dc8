"""The live stack page in a real browser: Debian's chromium, headless, driven by playwright.
The page is served by the API app on a loopback port; the stack runs on the in-process engine.
Screenshots of the graph's nodes are checked for the status colours (COMPLETE green, FAILED red,
IN_PROGRESS amber), the event list for the stack's events, and a node is seen to change colour
while the page stays loaded (server-sent events from the event table); the timeline beside the
graph labels a failed nested update's root cause."""
from __future__ import annotations

import io
import shutil
import threading
from collections import Counter
from typing import Any

import pytest
from werkzeug.serving import WSGIRequestHandler, make_server

from app.context import RequestContext
from app.services import stacks
from tests.fixtures.stacks import events, final, hot, wait_for

CTX = RequestContext(tenant_id="admin")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Chromium on a machine with no outside network: no background connections, no sandbox as root
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
GREEN, RED, AMBER = (0x2E, 0x9E, 0x44), (0xD9, 0x34, 0x2B), (0xF0, 0xAD, 0x00)


class _Quiet(WSGIRequestHandler):
    def log_request(self, *args: Any, **kwargs: Any) -> None:
        pass


@pytest.fixture()
def server(db):
    from app.api import create_app
    srv = make_server("127.0.0.1", 0, create_app(db), threaded=True, request_handler=_Quiet)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()


@pytest.fixture()
def page(tmp_path):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        yield pg
        pg.screenshot(path=str(tmp_path / "live-page.png"), full_page=True)
        browser.close()


def _dominant(png: bytes) -> tuple[int, int, int]:
    from PIL import Image
    img = Image.open(io.BytesIO(png)).convert("RGB")
    return Counter(img.get_flattened_data()).most_common(1)[0][0]


def _near(rgb: tuple[int, int, int], want: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 12 for a, b in zip(rgb, want))


def _node_colour(page: Any, name: str) -> tuple[int, int, int]:
    return _dominant(page.locator(f'g.node[data-name="{name}"] rect').screenshot())


def test_the_graph_shows_each_resource_in_its_status_colour_with_the_events(server, page):
    tmpl = hot({"net": {"type": "OS::Heat::None"},
                "server": {"type": "OS::Heat::TestResource", "depends_on": ["net"],
                           "properties": {"value": "up"}},
                "broken": {"type": "OS::Heat::TestResource", "depends_on": ["net"],
                           "properties": {"fail": True}},
                "after": {"type": "OS::Heat::None", "depends_on": ["broken"]}})
    st = final(CTX, stacks.create_stack(CTX, stack_name="web", template=tmpl).id)
    assert st.stack_status == "CREATE_FAILED"
    written = events(st.id)
    page.goto(f"{server}/live/admin/stacks/web/{st.id}")
    page.wait_for_function(f"window.stokerLive && window.stokerLive.events >= {len(written)}")
    assert page.locator("#stack-status").get_attribute("data-status") == "CREATE_FAILED"
    assert sorted(page.locator("g.node").evaluate_all("els => els.map(e => e.dataset.name)")) == \
        ["after", "broken", "net", "server"]
    assert _near(_node_colour(page, "net"), GREEN) and _near(_node_colour(page, "server"), GREEN)
    assert _near(_node_colour(page, "broken"), RED)
    # "after" never started: its dependency failed (grey, INIT)
    assert page.locator('g.node[data-name="after"]').get_attribute("data-status") == "INIT_COMPLETE"
    rows = page.locator("#events tr")
    assert rows.count() == len(written)
    assert rows.first.locator("td").nth(2).inner_text() == "CREATE_FAILED"   # newest first
    # the dependency arrows: net -> server, net -> broken, broken -> after
    assert page.locator("path.edge").count() == 3


def test_a_node_changes_colour_live_without_a_reload(server, page):
    tmpl = hot({"first": {"type": "OS::Heat::None"},
                "slow": {"type": "OS::Heat::TestResource", "depends_on": ["first"],
                         "properties": {"value": "v", "wait_secs": 4}}})
    worker = threading.Thread(target=stacks.create_stack, args=(CTX,),
                              kwargs={"stack_name": "live", "template": tmpl}, daemon=True)
    worker.start()
    st = wait_for(lambda: next(iter(stacks.list_stacks(CTX)), None), 20, 0.05, "the stack row")
    page.goto(f"{server}/live/admin/stacks/live/{st.id}")
    slow = page.locator('g.node[data-name="slow"]')
    page.wait_for_function("document.querySelector('g.node[data-name=\"slow\"]')"
                           "?.dataset.status === 'CREATE_IN_PROGRESS'", timeout=20000)
    loaded = page.evaluate("window.stokerLive.loaded")
    assert _near(_node_colour(page, "slow"), AMBER)
    page.wait_for_function("document.querySelector('g.node[data-name=\"slow\"]')"
                           "?.dataset.status === 'CREATE_COMPLETE'", timeout=30000)
    assert _near(_node_colour(page, "slow"), GREEN)
    assert page.evaluate("window.stokerLive.loaded") == loaded      # the same page, updated
    page.wait_for_function("document.querySelector('#stack-status').dataset.status"
                           " === 'CREATE_COMPLETE'", timeout=20000)
    worker.join(10)
    assert slow.get_attribute("data-status") == "CREATE_COMPLETE"


def test_another_tenants_stack_is_a_404_for_the_page_data(server):
    import requests
    st = final(CTX, stacks.create_stack(CTX, stack_name="mine", template=hot(
        {"x": {"type": "OS::Heat::None"}})).id)
    ok = requests.get(f"{server}/v1/admin/stacks/mine/{st.id}/live/graph", timeout=10)
    assert ok.status_code == 200 and [r["name"] for r in ok.json()["resources"]] == ["x"]
    # noauth as Heat's: the project comes from the headers (an admin's URL tenant is its own)
    other = requests.get(f"{server}/v1/other/stacks/mine/{st.id}/live/graph", timeout=10,
                         headers={"X-Project-Id": "other", "X-Roles": "member"})
    assert other.status_code == 404 and other.json()["error"]["type"] == "EntityNotFound"


def test_the_timeline_beside_the_graph_labels_the_root_cause(db, server, page):
    from app.api import create_app
    from tests.integration.api.test_timeline import failed_nested_update
    base = failed_nested_update(create_app(db).test_client(), "nested")
    page.goto(f"{server}/live/admin/stacks/nested/{base.rsplit('/', 1)[1]}")
    page.wait_for_function("window.stokerLive && window.stokerLive.timelines >= 1")
    assert page.locator("#timeline-title").inner_text() == "Timeline: UPDATE_FAILED"
    cause = page.locator("#root-cause")
    assert cause.get_attribute("data-resource") == "top/inner/v"
    assert cause.inner_text() == ("Root cause: nested › top › inner › v — "
                                  "ValueError: resources.v: Test Resource failed v")
    spans = page.locator("g.span")
    ids = spans.evaluate_all("els => els.map(e => e.dataset.id)")
    assert {"top", "top/inner", "top/inner/v"} <= set(ids)
    labelled = page.locator('g.span[data-root-cause="true"]')
    assert labelled.count() == 1 and labelled.get_attribute("data-id") == "top/inner/v"
    assert labelled.locator("text.cause").text_content() == "root cause"
    assert labelled.locator("rect").get_attribute("fill") == "#d9342b"              # FAILED red
    # the graph is still drawn, beside the timeline
    box, graph = page.locator("#timeline-box").bounding_box(), page.locator("#graph-box").bounding_box()
    assert box["x"] > graph["x"] and abs(box["y"] - graph["y"]) < 5
