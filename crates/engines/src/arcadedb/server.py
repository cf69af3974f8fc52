"""Starts an ArcadeDB server for graphlancer, from the arcadedb-embedded package.

Run by graphlancer as `python -c <this file> ROOT HTTP_PORT BOLT_PORT PASSWORD TIMEOUT_MS`
inside the package's virtualenv. The JVM runs inside this process (JPype), so
killing the process stops the server. Prints one line `READY <version>` when
Bolt accepts queries, and stops when stdin closes (graphlancer went away) or
on SIGTERM.
"""

import os
import signal
import sys
import threading

root, http_port, bolt_port, password, timeout_ms = sys.argv[1:6]
os.makedirs(root, exist_ok=True)
# The server writes its logs relative to the working directory.
os.chdir(root)
# A small heap: graphlancer's graphs are tiny, and several engines share the machine.
os.environ.setdefault("ARCADEDB_JVM_ARGS", f"-Xmx512m -Darcadedb.command.timeout={timeout_ms}")

import arcadedb_embedded as adb  # noqa: E402
import jpype  # noqa: E402
from arcadedb_embedded.jvm import start_jvm  # noqa: E402

start_jvm()
# The server-level config does not reach Cypher over Bolt; the global one does.
jpype.JClass("com.arcadedb.GlobalConfiguration").COMMAND_TIMEOUT.setValue(int(timeout_ms))

server = adb.create_server(
    root_path=os.path.join(root, "databases"),
    root_password=password,
    config={
        "host": "127.0.0.1",
        "http_port": int(http_port),
        "server_plugins": "Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
        "bolt_port": int(bolt_port),
    },
)
server.start()
server.create_database("g")

stop = threading.Event()
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, lambda *_: stop.set())


def watch_stdin():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        stop.set()


threading.Thread(target=watch_stdin, daemon=True).start()
print(f"READY {getattr(adb, '__version__', 'unknown')}", flush=True)
while not stop.wait(0.5):
    pass
# Skip the JVM's orderly shutdown hooks: the data is scratch.
os._exit(0)
