"""A small MCP server that runs inside Blender and exposes the mesh tools that
dcc-mcp-core's mesh-ops pack routes to for Blender.

    blender -b --factory-startup --python bridge.py -- --port 9876

MCP streamable HTTP (revisions 2025-11-25, 2025-06-18, 2025-03-26) with plain
JSON responses, no SSE. The HTTP loop runs on Blender's main thread, so every
tool calls bpy directly; one request is served at a time, which is what a
Blender scene needs anyway. Stdlib only: Blender's bundled Python has nothing
else.
"""

import argparse
import json
import os
import signal
import sys
import time
import uuid
from http.server import BaseHTTPRequestHandler, HTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import schema  # noqa: E402  (after the path set-up above)

SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
LATEST_VERSION = SUPPORTED_VERSIONS[0]
MAX_BODY_BYTES = 1 << 20
SERVER_INFO = {"name": "blender-bridge", "version": "1.0.0"}

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SESSION_NOT_FOUND = -32001
# The 2026-07-28 revision's code for "not a version I speak", with data {supported, requested}.
UNSUPPORTED_PROTOCOL_VERSION = -32022


class ToolError(Exception):
    """A tool that cannot do what it was asked (unknown object, index out of range)."""


def load_tools():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools.json"), encoding="utf-8") as f:
        return json.load(f)["tools"]


def parse_args(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    parser = argparse.ArgumentParser(prog="bridge.py")
    parser.add_argument("--port", type=int, default=9876, help="0 picks a free port")
    parser.add_argument("--lying-tool", action="append", default=[],
                        help="a tool (full name or the part after __) that does nothing and reports changed: false")
    parser.add_argument("--slow-ms", type=int, default=0, help="delay every tools/call by this many milliseconds")
    parser.add_argument("--max-sessions", type=int, default=1024,
                        help="keep at most this many sessions; the least recently used one goes first")
    # A client that connects and sends nothing must not hold the one thread forever.
    parser.add_argument("--idle-timeout-s", type=float, default=10.0,
                        help="drop a connection that sends nothing for this long")
    return parser.parse_args(args)


class Bridge:
    """Protocol state: sessions and the tool table. Knows nothing of HTTP."""

    def __init__(self, tools, implementations, lying=(), slow_ms=0, max_sessions=1024):
        self.tools = {tool["name"]: tool for tool in tools}
        self.implementations = implementations
        self.lying = {name if "__" in name else "blender_mesh_ops__" + name for name in lying}
        self.slow_ms = slow_ms
        self.max_sessions = max(1, max_sessions)
        # Insertion-ordered: the first key is the least recently used session.
        # Clients seldom send DELETE, so without a bound sessions would pile up.
        self.sessions = {}

    # Answers are (status, headers, body-or-None).
    def handle_post(self, session_id, protocol_header, raw):
        try:
            message = json.loads(raw.decode("utf-8"), parse_constant=reject_constant)
        except (UnicodeDecodeError, ValueError):
            return 400, {}, error_body(None, PARSE_ERROR, "Parse error: the body is not JSON")
        if isinstance(message, list):
            return 400, {}, error_body(None, INVALID_REQUEST, "Invalid Request: batches are not supported")
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return 400, {}, error_body(None, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")
        method = message.get("method")
        has_id = "id" in message
        request_id = message.get("id")
        if has_id and (isinstance(request_id, bool) or not isinstance(request_id, (str, int))):
            return 400, {}, error_body(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
        if method is None:
            # A response to a server request; this server sends none, so it is dropped.
            if has_id and ("result" in message or "error" in message):
                return 202, {}, None
            return 400, {}, error_body(request_id, INVALID_REQUEST, "Invalid Request: no method")
        if not isinstance(method, str):
            return 400, {}, error_body(request_id, INVALID_REQUEST, "Invalid Request: method must be a string")
        params = message.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return 400, {}, error_body(request_id, INVALID_PARAMS, "Invalid params: params must be an object")

        if method == "initialize":
            if not has_id:
                return 400, {}, error_body(None, INVALID_REQUEST, "Invalid Request: initialize needs an id")
            return self.initialize(request_id, params)

        if protocol_header is not None and protocol_header not in SUPPORTED_VERSIONS:
            # A 2026-07-28 client probing with server/discover reads the list and falls back to initialize.
            body = error_body(request_id, UNSUPPORTED_PROTOCOL_VERSION,
                              "Unsupported protocol version " + protocol_header)
            body["error"]["data"] = {"supported": list(SUPPORTED_VERSIONS), "requested": protocol_header}
            return 400, {}, body
        if session_id is None:
            return 400, {}, error_body(request_id, INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required")
        session = self.sessions.pop(session_id, None)
        if session is None:
            return 404, {}, error_body(request_id, SESSION_NOT_FOUND, "Session not found")
        self.sessions[session_id] = session
        if not has_id:
            # notifications/initialized, notifications/cancelled (a call is never
            # in flight while this runs: one request at a time), anything else.
            return 202, {}, None
        headers = {"Mcp-Session-Id": session_id}
        if method == "ping":
            return 200, headers, result_body(request_id, {})
        if method == "tools/list":
            return 200, headers, result_body(request_id, {"tools": list(self.tools.values())})
        if method == "tools/call":
            return self.call_tool(request_id, params, headers)
        return 200, headers, error_body(request_id, METHOD_NOT_FOUND, "Method not found: " + method)

    def initialize(self, request_id, params):
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            return 400, {}, error_body(request_id, INVALID_PARAMS, "Invalid params: protocolVersion must be a string")
        version = requested if requested in SUPPORTED_VERSIONS else LATEST_VERSION
        session_id = uuid.uuid4().hex
        while len(self.sessions) >= self.max_sessions:
            del self.sessions[next(iter(self.sessions))]
        self.sessions[session_id] = {"protocolVersion": version, "clientInfo": params.get("clientInfo")}
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": SERVER_INFO,
            "instructions": "Blender mesh tools (dcc-mcp-core mesh-ops vocabulary). Each call answers a receipt read back from the scene.",
        }
        return 200, {"Mcp-Session-Id": session_id}, result_body(request_id, result)

    def delete_session(self, session_id):
        if session_id is None:
            return 400, {}, error_body(None, INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required")
        if self.sessions.pop(session_id, None) is None:
            return 404, {}, error_body(None, SESSION_NOT_FOUND, "Session not found")
        return 200, {}, None

    def call_tool(self, request_id, params, headers):
        name = params.get("name")
        if not isinstance(name, str):
            return 200, headers, error_body(request_id, INVALID_PARAMS, "Invalid params: name must be a string")
        tool = self.tools.get(name)
        if tool is None:
            return 200, headers, error_body(request_id, INVALID_PARAMS, "Unknown tool: " + name)
        arguments = params.get("arguments", {})
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return 200, headers, error_body(request_id, INVALID_PARAMS, "Invalid params: arguments must be an object")
        started = time.monotonic()
        # One line when a call starts and one when it ends, on stderr: a TD
        # watching the console sees what the agent does to the scene.
        log("call %s" % name)
        answer = self.run_tool(request_id, tool, name, arguments, headers)
        failed = answer[2].get("result", {}).get("isError", False)
        log("done %s %s %.0f ms" % (name, "error" if failed else "ok", (time.monotonic() - started) * 1000))
        return answer

    def run_tool(self, request_id, tool, name, arguments, headers):
        if self.slow_ms > 0:
            time.sleep(self.slow_ms / 1000.0)
        # Argument errors are tool execution errors (2025-11-25): the model can read and fix them.
        problems = schema.validate(tool["inputSchema"], arguments)
        if problems:
            return 200, headers, result_body(request_id, tool_error(name + ": invalid arguments: " + "; ".join(problems)))
        arguments = schema.with_defaults(tool["inputSchema"], arguments)
        verb = name.split("__", 1)[1]
        try:
            if name in self.lying:
                receipt = self.implementations.no_op(verb, arguments)
            else:
                receipt = getattr(self.implementations, verb)(arguments)
        except ToolError as failure:
            return 200, headers, result_body(request_id, tool_error("%s: %s" % (name, failure)))
        except Exception as failure:  # a bpy failure is the tool's failure, not the server's
            return 200, headers, result_body(request_id, tool_error("%s failed in Blender: %s" % (name, failure)))
        return 200, headers, result_body(request_id, {
            "content": [{"type": "text", "text": json.dumps(receipt)}],
            "structuredContent": receipt,
            "isError": False,
        })


def reject_constant(name):
    # Python's json reads NaN and Infinity; JSON has neither, and a NaN width
    # would pass every bound check.
    raise ValueError("%s is not JSON" % name)


def log(line):
    sys.stderr.write("bridge: %s\n" % line)
    sys.stderr.flush()


def tool_error(text):
    return {"content": [{"type": "text", "text": text}], "isError": True}


def result_body(request_id, result):
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_body(request_id, code, message):
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def loopback_origin(origin):
    # Browsers send Origin; a page on another host must not drive the scene (DNS rebinding).
    for prefix in ("http://", "https://"):
        if origin.startswith(prefix):
            host = origin[len(prefix):].split("/", 1)[0]
            if host.startswith("["):
                host = host[1:].split("]", 1)[0]
            else:
                host = host.split(":", 1)[0]
            return host in ("127.0.0.1", "localhost", "::1")
    return False


def make_handler(bridge, idle_timeout_s, path="/mcp"):
    class Handler(BaseHTTPRequestHandler):
        # One request per connection: a kept-alive connection would hold the
        # single-threaded loop while every other client waits.
        protocol_version = "HTTP/1.0"
        timeout = idle_timeout_s
        server_version = "blender-bridge/1.0"

        def log_message(self, format, *args):  # noqa: A002  (stdlib signature)
            pass

        def answer(self, status, headers, body):
            data = b"" if body is None else json.dumps(body).encode("utf-8")
            self.send_response(status)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            if data:
                self.wfile.write(data)

        def guard(self):
            if self.path.split("?", 1)[0] != path:
                self.answer(404, {}, error_body(None, INVALID_REQUEST, "Not Found: the endpoint is " + path))
                return False
            origin = self.headers.get("Origin")
            if origin is not None and not loopback_origin(origin):
                self.answer(403, {}, error_body(None, INVALID_REQUEST, "Forbidden: Origin " + origin))
                return False
            return True

        def do_POST(self):
            if not self.guard():
                return
            accept = self.headers.get("Accept", "*/*")
            if "application/json" not in accept and "*/*" not in accept:
                self.answer(406, {}, error_body(None, INVALID_REQUEST, "Not Acceptable: the client must accept application/json"))
                return
            content_type = self.headers.get("Content-Type", "")
            if content_type.split(";", 1)[0].strip().lower() != "application/json":
                self.answer(415, {}, error_body(None, INVALID_REQUEST, "Unsupported Media Type: Content-Type must be application/json"))
                return
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                self.answer(411, {}, error_body(None, INVALID_REQUEST, "Length Required"))
                return
            if length < 0 or length > MAX_BODY_BYTES:
                self.answer(413, {}, error_body(None, INVALID_REQUEST, "Payload Too Large: the limit is %d bytes" % MAX_BODY_BYTES))
                return
            raw = self.rfile.read(length)
            try:
                answer = bridge.handle_post(self.headers.get("Mcp-Session-Id"),
                                            self.headers.get("MCP-Protocol-Version"), raw)
            except Exception as failure:  # a bug in the bridge: answer it, keep serving
                answer = 500, {}, error_body(None, INTERNAL_ERROR, "Internal error: %s" % failure)
            self.answer(*answer)

        def do_GET(self):
            if not self.guard():
                return
            # No server-to-client stream: every answer is plain JSON.
            self.answer(405, {"Allow": "POST, DELETE"}, error_body(None, INVALID_REQUEST, "Method Not Allowed"))

        def do_DELETE(self):
            if not self.guard():
                return
            self.answer(*bridge.delete_session(self.headers.get("Mcp-Session-Id")))

        def do_PUT(self):
            self.answer(405, {"Allow": "POST, DELETE"}, error_body(None, INVALID_REQUEST, "Method Not Allowed"))

        do_PATCH = do_PUT

    return Handler


def stop_on_signal(signum, frame):
    raise SystemExit(0)


def main():
    options = parse_args(sys.argv)
    tools = load_tools()
    import mesh_tools  # imports bpy: only inside Blender

    known = {tool["name"] for tool in tools}
    for name in options.lying_tool:
        full = name if "__" in name else "blender_mesh_ops__" + name
        if full not in known:
            sys.exit("bridge.py: --lying-tool %s is not one of the bridge's tools" % name)
    bridge = Bridge(tools, mesh_tools.Implementations(ToolError), options.lying_tool, options.slow_ms,
                    options.max_sessions)
    server = HTTPServer(("127.0.0.1", options.port), make_handler(bridge, options.idle_timeout_s))
    # Blender leaves SIGTERM to the embedded interpreter, which ignores it by
    # default; end the loop so the script returns and Blender quits.
    signal.signal(signal.SIGTERM, stop_on_signal)
    print("BRIDGE_READY port=%d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
