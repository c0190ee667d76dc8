"""The sandbox server agent (app.sandbox.agent, app.sandbox.agent_script): a server's RAW user
data performs its signalling commands (a wait condition handle's ``curl_cli``, heat-cfntools'
``cfn-signal``) once the server is ACTIVE, as cloud-init would run the script on a real image;
nothing else of the script runs."""
from __future__ import annotations

import base64
import json
import queue
import threading
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from app.sandbox import agent_script
from tests.sandbox.conftest import wait_for
from tests.sandbox.test_compute import boot, wait_status

# what Heat's OS::Heat::WaitConditionHandle curl_cli expands to, with str_replace's wc_notify
CURL_CLI = ("curl -i -X POST -H 'X-Auth-Token: tok' -H 'Content-Type: application/json' "
            "-H 'Accept: application/json' {url}")


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_curl_cli_lines_become_their_requests() -> None:
    script = ("#!/bin/bash -v\n# curl http://commented.out/\necho start; "
              + CURL_CLI.format(url="http://h:8004/v1/t/stacks/s/1/resources/wh/signal")
              + " \\\n  --data-binary '{\"status\": \"SUCCESS\", \"data\": \"hello\"}' && echo ok\n"
              "curl -s http://h/plain\n")
    first, second = agent_script.requests_of(script, "srv-1")
    assert (first.method, first.url) == ("POST", "http://h:8004/v1/t/stacks/s/1/resources/wh/signal")
    assert first.headers == {"X-Auth-Token": "tok", "Content-Type": "application/json",
                             "Accept": "application/json"}
    assert json.loads(first.data or "") == {"status": "SUCCESS", "data": "hello"}
    assert (second.method, second.url, second.data) == ("GET", "http://h/plain", None)


def test_data_without_a_method_is_a_post_and_several_are_joined_as_curl_does() -> None:
    (req,) = agent_script.requests_of("curl -d a=1 --data b=2 http://h/x", "s")
    assert (req.method, req.data) == ("POST", "a=1&b=2")


@pytest.mark.parametrize(("args", "status", "unique", "reason", "data"), [
    # heat-cfntools bin/cfn-signal: the exit code takes precedence over --success
    ("-e 0 -r Done", "SUCCESS", "srv-1", "Done", "Application has completed configuration."),
    ("-e 3 -s true", "FAILURE", "srv-1", "Configuration Complete",
     "Application has completed configuration."),
    ("-s false -i db -d payload", "FAILURE", "db", "Configuration Complete", "payload"),
    # the status of the command before: 0, every command of the followed script succeeds
    ("-e $? -r 'Setup complete'", "SUCCESS", "srv-1", "Setup complete",
     "Application has completed configuration."),
    ('-e "${?}"', "SUCCESS", "srv-1", "Configuration Complete",
     "Application has completed configuration."),
    ("", "SUCCESS", "srv-1", "Configuration Complete", "Application has completed configuration."),
])
def test_cfn_signal_puts_heat_cfntools_body(args: str, status: str, unique: str, reason: str,
                                            data: str) -> None:
    (req,) = agent_script.requests_of(f"/opt/aws/bin/cfn-signal {args} 'http://h:8000/v1/waitcondition/x'",
                               "srv-1")
    assert (req.method, req.url, req.headers) == ("PUT", "http://h:8000/v1/waitcondition/x", {})
    assert json.loads(req.data or "") == {"Status": status, "Reason": reason, "UniqueId": unique,
                                          "Data": data}


def test_mime_user_data_is_read_part_by_part_and_other_text_runs_nothing() -> None:
    message = MIMEMultipart()
    message.attach(MIMEText("#cloud-config\nruncmd: [curl http://h/not-a-script]\n", "cloud-config"))
    message.attach(MIMEText("#!/bin/sh\ncurl -X PUT http://h/yes\n", "x-shellscript"))
    (req,) = [r for s in agent_script.scripts(_b64(message.as_string()))
              for r in agent_script.requests_of(s, "s")]
    assert (req.method, req.url) == ("PUT", "http://h/yes")
    assert agent_script.scripts(None) == [] and agent_script.scripts("!!not base64") == []
    assert agent_script.requests_of("echo 'unbalanced\nwget http://h/other", "s") == []


@pytest.fixture()
def receiver():
    """A local HTTP server recording ``(method, path, headers, body)`` of each request."""
    got: queue.Queue = queue.Queue()

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            got.put((self.command, self.path, dict(self.headers), self.rfile.read(length)))
            self.send_response(200)
            self.end_headers()

        do_POST = do_PUT = do_GET = _record

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", got
    server.shutdown()


def test_an_active_server_signals_its_handle_and_the_agent_records_it(no_leaks, conn, sandbox,
                                                                      receiver) -> None:
    url, got = receiver
    script = ("#!/bin/bash\nset -e\napt-get install -y nginx\n"
              + CURL_CLI.format(url=f"{url}/signal")
              + " --data-binary '{\"status\": \"SUCCESS\", \"data\": \"hello\"}'\n"
              "curl -X PUT http://127.0.0.1:1/$UNSET\n")
    server = boot(conn, user_data=_b64(script))
    assert got.empty()  # BUILD: cloud-init has not run
    wait_status(conn, server, "ACTIVE")
    method, path, headers, body = got.get(timeout=10)
    assert (method, path, headers["X-Auth-Token"]) == ("POST", "/signal", "tok")
    assert json.loads(body) == {"status": "SUCCESS", "data": "hello"}
    records = wait_for(lambda: len(done := sandbox.admin(
        "GET", f"servers/{server.id}/agent")["commands"]) == 2 and done)
    assert records[0] == {"method": "POST", "url": f"{url}/signal", "status": 200, "error": None}
    assert records[1]["error"] == "skipped: an unexpanded shell variable"
    assert got.empty()
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)


def test_the_script_is_followed_as_if_every_command_succeeded() -> None:
    # heat-templates' MySQL_Single_Instance.template and test_volumes_delete_snapshot.yaml
    script = """#!/bin/bash -v
function error_exit
{
  /opt/aws/bin/cfn-signal -e 1 -r "$1" 'http://h/fail-fn'
  exit 1
}
/opt/aws/bin/cfn-init -s st -r Db || error_exit 'Failed to run cfn-init'
cat << EOF | mysql -u root
curl http://h/heredoc-is-data
EOF
notify() { curl -X PUT http://h/called-fn; }
for i in $(seq 1 10)
do
  grep -q vdb /proc/partitions && break
  curl http://h/after-break
done
while true; do curl -X POST http://h/loop-once; if [ $? -eq 0 ]; then break; fi; done
until curl http://h/until-cond; do curl http://h/until-body; done
if grep -q vdb /proc/partitions
then
  curl -X PUT http://h/then
elif true; then
  curl http://h/elif
else
  curl -X PUT http://h/else
fi
false || { curl http://h/or-group; exit 1; }
notify
/opt/aws/bin/cfn-signal -e 0 -r "done" 'http://h/success'
exit 0
curl http://h/after-exit
"""
    got = [(r.method, r.url) for r in agent_script.requests_of(script, "s")]
    assert got == [("POST", "http://h/loop-once"), ("GET", "http://h/until-cond"),
                   ("PUT", "http://h/then"), ("PUT", "http://h/called-fn"),
                   ("PUT", "http://h/success")]


def test_heat_cfntools_user_data_runs_its_cfn_userdata_script() -> None:
    from app.resource_types import _userdata
    text = _userdata.build("#!/bin/bash\n/opt/aws/bin/cfn-signal -e 0 'http://h/wc'\n",
                           "HEAT_CFNTOOLS", metadata={"AWS::CloudFormation::Init": {}})
    got = [(r.method, r.url) for s in agent_script.scripts(_userdata.encode(text))
           for r in agent_script.requests_of(s, "srv")]
    assert got == [("PUT", "http://h/wc")]
    not_a_script = _userdata.build("curl http://h/no", "HEAT_CFNTOOLS")
    assert [r for s in agent_script.scripts(_userdata.encode(not_a_script))
            for r in agent_script.requests_of(s, "srv")] == []


def test_a_for_loop_runs_its_body_for_each_item() -> None:
    """heat-tempest-plugin's multi-signal wait condition: ``for i in `seq 1 20`; do _signal &
    done`` sends twenty signals; a literal list iterates over its words; ``break`` ends it."""
    script = """#!/bin/sh
_signal(){ while true; do curl -X POST http://h/sig; if [ $? -eq 0 ]; then break; fi; done }
for i in `seq 1 20`; do _signal & done
for x in a b c; do curl http://h/item; done
for y in 1 2 3; do curl http://h/first; break; done
wait
"""
    got = [r.url for r in agent_script.requests_of(script, "s")]
    assert got == ["http://h/sig"] * 20 + ["http://h/item"] * 3 + ["http://h/first"]
