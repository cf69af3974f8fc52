"""graphlancer's host protocol, for engines driven from Python.

graphlancer runs `python -c <this file + one engine's host file> ARGS...`
inside the virtualenv of one engine release. The engine's file defines a
host object and ends by calling `serve(host)`.

The protocol: one JSON request a line on stdin, one reply a line on stdout
behind the reply mark, so anything the engine itself prints is never taken
for a reply. The graph arrives as a creation script rendered by graphlancer,
so the text a report shows is the text that ran. A query that may write is
answered, then undone (a rolled-back transaction, or a reload from the
script), which leaves every query the graph as generated.
"""

import json
import math
import sys

MARK = "@@graphlancer-host@@ "
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


class Undecodable(Exception):
    """A value graphlancer has no form for."""


def is_scalar(v):
    return v is None or isinstance(v, (bool, str, int, float))


def scalar(v):
    """A null, boolean, string, 64-bit integer or float as the protocol spells it."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        if not I64_MIN <= v <= I64_MAX:
            raise Undecodable(f"integer {v} does not fit in 64 bits")
        return v
    if math.isnan(v):
        return {"float": "NaN"}
    if math.isinf(v):
        return {"float": "inf" if v > 0 else "-inf"}
    return v


def error(cls, message):
    return {"outcome": "error", "class": cls, "message": message}


def reply(obj):
    sys.stdout.write(MARK + json.dumps(obj, allow_nan=False, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def serve(host):
    """Answers requests until stdin closes. `host` has `version`,
    `load(statements)`, `begin()` (True when a transaction is open),
    `execute(query, max_rows, timeout_ms)` and `undo(in_transaction)`."""
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            op = request.get("op")
            if op == "version":
                reply({"reply": "version", "version": host.version})
            elif op == "script":
                try:
                    host.load(request["statements"])
                    reply({"reply": "loaded"})
                except Exception as e:
                    reply({"reply": "failed", "message": str(e)})
            elif op == "execute":
                # graphlancer says whether the query may write (it errs towards
                # yes). Such a query is undone after the reply, so the client's
                # timeout measures the query alone; its next request waits.
                writes = request.get("writes", True)
                in_transaction = writes and host.begin()
                outcome = host.execute(request["query"], request["max_rows"], request.get("timeout_ms", 0))
                reply({"reply": "outcome", "outcome": outcome})
                if writes:
                    try:
                        host.undo(in_transaction)
                    except Exception as e:
                        sys.stderr.write(f"cannot restore the graph after a write: {e}\n")
                        sys.exit(3)
            else:
                reply({"reply": "failed", "message": f"bad request: unknown op {op!r}"})
        except (ValueError, KeyError) as e:
            reply({"reply": "failed", "message": f"bad request: {e}"})
