"""graphlancer's engine host for Kuzu and its forks LadybugDB and RyuGraph.

Run by graphlancer as `python -c <python_host.py + this file> MODULE
[SETTINGS]`, inside the virtualenv of one engine version; python_host.py
speaks the host protocol.

The graph arrives as a creation script (tables, then data) rendered by
graphlancer, so the text a report shows is the text that ran. A query that
may write is answered, then followed by a reload from that script, which
leaves every query the graph as generated.
"""

import atexit
import decimal
import hashlib
import importlib
import importlib.metadata
import os
import re
import shutil
import sys
import tempfile


class KuzuHost:
    def __init__(self, module_name, settings=""):
        self.lib = importlib.import_module(module_name)
        # Optimization settings, `name=value&...`, set on every connection.
        self.settings = [s.split("=", 1) for s in settings.split("&") if s]
        # Kuzu 0.1 has no __version__.
        self.version = getattr(self.lib, "__version__", None) or package_version(module_name)
        # Kuzu before 0.6 has no in-memory database: ":memory:" is a folder
        # name there. Such a release keeps its database in the scratch
        # folder graphlancer gives the host and removes after killing it.
        self.scratch = None
        if numeric(self.version) < (0, 6):
            self.scratch = os.environ.get("GRAPHLANCER_HOST_SCRATCH")
            if not self.scratch:
                self.scratch = tempfile.mkdtemp(prefix="graphlancer-kuzu-")
                atexit.register(shutil.rmtree, self.scratch, True)
        # Copies of loaded databases, shared by this engine's hosts: a host
        # started after a crash copies the graph's folder (milliseconds)
        # instead of creating it (a third of a second on 0.1.0, where one
        # query in six crashes).
        self.snapshots = os.environ.get("GRAPHLANCER_HOST_SNAPSHOTS") if self.scratch else None
        # Relationship tables of a table group (Kuzu before 0.8), by the
        # group's name: `T1_L0_L1` answers as `T1`.
        self.groups = {}
        self.script = []
        self.db = None
        self.conn = None
        self.identities = {}
        self.timeout_ms = None
        # Writes are undone by rolling back a transaction, which every release
        # here does exactly (the tests compare the graph after each write with
        # the one loaded); reloading is the fallback.
        self.transactions = True
        # An empty database until a graph arrives, so queries work from the start.
        self.reload()

    # Loading -----------------------------------------------------------------

    def reload(self):
        self.conn = None
        self.db = None
        self.timeout_ms = None
        if self.scratch is None:
            # An in-memory database: nothing to clean up when the host dies.
            self.db = self.lib.Database(":memory:")
        else:
            path = os.path.join(self.scratch, "db")
            shutil.rmtree(path, ignore_errors=True)
            if os.path.exists(path):
                os.remove(path)
            snapshot = self.snapshot()
            if snapshot and os.path.isdir(snapshot):
                # A copy that cannot be opened, or does not hold the graph
                # it was made of (a release that had not written it all to
                # its files), is dropped, and the graph created as for the
                # first host.
                try:
                    shutil.copytree(snapshot, path, ignore=shutil.ignore_patterns(".lock"))
                    self.open(path)
                    self.tables(execute=False)
                    self.identify()
                    if self.counts() == self.read_counts(snapshot):
                        return
                except Exception:
                    pass
                shutil.rmtree(snapshot, ignore_errors=True)
                self.conn = None
                self.db = None
                shutil.rmtree(path, ignore_errors=True)
            self.db = self.lib.Database(path)
        self.connect()
        self.insert(self.tables(execute=True))
        self.identify()
        snapshot = self.snapshot()
        if snapshot and not os.path.isdir(snapshot):
            self.keep(path, snapshot)

    def keep(self, path, snapshot):
        """Copies the loaded database, once its load has committed, as the
        one copy kept (the graph reducer loads many graphs; only the last
        is reloaded after a crash). Renamed into place, so a host that dies
        while copying leaves no half a database behind; a copy that cannot
        be made costs only the next host's speed."""
        partial = f"{snapshot}.{os.getpid()}"
        try:
            for old in os.listdir(self.snapshots):
                old = os.path.join(self.snapshots, old)
                if os.path.isdir(old):
                    shutil.rmtree(old, ignore_errors=True)
                else:
                    os.remove(old)
            shutil.copytree(path, partial, ignore=shutil.ignore_patterns(".lock"))
            with open(f"{snapshot}.counts", "w") as f:
                f.write(repr(self.counts()))
            os.rename(partial, snapshot)
        except Exception:
            shutil.rmtree(partial, ignore_errors=True)

    def counts(self):
        """The numbers of nodes and relationships the database holds."""
        result = self.conn.execute("MATCH ()-[r]->() RETURN count(r)")
        return (len(self.identities), result.get_next()[0])

    @staticmethod
    def read_counts(snapshot):
        try:
            with open(f"{snapshot}.counts") as f:
                return tuple(int(n) for n in f.read().strip("()\n").split(","))
        except (OSError, ValueError):
            return None

    def snapshot(self):
        """The folder a copy of this script's database is kept in, if any."""
        if not self.snapshots or not self.script:
            return None
        key = hashlib.sha256("\n".join(self.script).encode()).hexdigest()[:24]
        return os.path.join(self.snapshots, f"{self.version}-{key}")

    def open(self, path):
        self.db = self.lib.Database(path)
        self.connect()

    def connect(self):
        # One thread: with more, some answers change from run to run (seen on
        # Kuzu 0.11.3 after OPTIONAL MATCH), which would be false alarms.
        self.conn = self.lib.Connection(self.db, num_threads=1)
        for name, value in self.settings:
            self.conn.execute(f"CALL {name}={value}")

    def tables(self, execute):
        """The script's data statements, after learning its table groups'
        names (a copied database has its tables; a new one gets them)."""
        self.groups = {}
        tables, data = [], []
        for statement in self.script:
            (tables if TABLE.match(statement) else data).append(statement)
        for statement in tables:
            group = GROUP.match(statement)
            if group:
                for src, dst in re.findall(r"FROM\s+(\w+)\s+TO\s+(\w+)", statement):
                    self.groups[f"{group.group(1)}_{src}_{dst}"] = group.group(1)
            if execute:
                self.conn.execute(statement)
        return data

    def identify(self):
        self.identities = {}
        if self.script:
            result = self.conn.execute("MATCH (n) RETURN id(n), n.gid")
            while result.has_next():
                internal, gid = result.get_next()
                self.identities[internal_key(internal)] = gid

    def insert(self, statements):
        """Runs the data statements in one transaction where the release
        takes one: each statement its own transaction made an old release's
        load (0.1.0, on disk) two and a half times as slow. A failure undoes
        the transaction, and the statements run one by one instead."""
        if self.transactions and len(statements) > 1:
            try:
                self.conn.execute("BEGIN TRANSACTION")
            except Exception:
                self.transactions = False
            else:
                try:
                    for statement in statements:
                        self.conn.execute(statement)
                    self.conn.execute("COMMIT")
                    return
                except Exception:
                    try:
                        self.conn.execute("ROLLBACK")
                    except Exception:
                        pass
        for statement in statements:
            self.conn.execute(statement)

    def load(self, statements):
        self.script = list(statements)
        self.reload()

    # Restoring -----------------------------------------------------------------

    def begin(self):
        """Opens a transaction for a query that may write; False where the
        release cannot, and the graph is reloaded after the query instead."""
        if not self.transactions:
            return False
        try:
            self.conn.execute("BEGIN TRANSACTION")
            return True
        except Exception:
            self.transactions = False
            return False

    def undo(self, in_transaction):
        """Undoes the query's writes. Kuzu from 0.6 on ends a transaction
        itself when a statement in it fails (the writes are undone then)."""
        if not in_transaction:
            self.reload()
            return
        try:
            self.conn.execute("ROLLBACK")
        except Exception as e:
            if "No active transaction" not in str(e):
                raise

    # Queries -----------------------------------------------------------------

    def execute(self, query, max_rows, timeout_ms):
        if timeout_ms and timeout_ms != self.timeout_ms and hasattr(self.conn, "set_query_timeout"):
            self.conn.set_query_timeout(timeout_ms)
            self.timeout_ms = timeout_ms
        return self.run(query, max_rows, timeout_ms)

    def run(self, query, max_rows, timeout_ms):
        try:
            result = self.conn.execute(query)
        except Exception as e:  # the engine's answer, not the host's failure
            return classify(str(e), timeout_ms)
        if isinstance(result, list):  # several statements: the last answers
            result = result[-1]
        columns = list(result.get_column_names())
        rows = []
        try:
            while result.has_next():
                if len(rows) == max_rows:
                    return {"outcome": "toolarge", "max_rows": max_rows}
                rows.append([self.decode(v) for v in result.get_next()])
        except Undecodable as e:
            return {"outcome": "undecodable", "message": str(e)}
        except Exception as e:
            return classify(str(e), timeout_ms)
        return {"outcome": "rows", "columns": columns, "rows": rows}

    # Values ------------------------------------------------------------------

    def decode(self, v):
        if isinstance(v, decimal.Decimal):  # sum() over INT64 is INT128
            if v == v.to_integral_value():
                return self.decode(int(v))
            return self.decode(float(v))
        if is_scalar(v):
            return scalar(v)
        if isinstance(v, (list, tuple)):
            return [self.decode(x) for x in v]
        if isinstance(v, dict):
            return self.decode_dict(v)
        raise Undecodable(f"graphlancer cannot decode the {type(v).__name__} value {v!r} yet")

    def decode_dict(self, d):
        # LadybugDB spells the reserved keys in upper case.
        reserved = {k.lower(): v for k, v in d.items() if k.startswith("_")}
        if "_nodes" in reserved and "_rels" in reserved:
            # OPTIONAL MATCH without a match gives a path of null entities, not None.
            if any(is_null_entity(x) for x in list(reserved["_nodes"]) + list(reserved["_rels"])):
                return None
            return {"path": {
                "nodes": [self.node(n) for n in reserved["_nodes"]],
                "relationships": [self.rel(r) for r in reserved["_rels"]],
            }}
        if is_null_entity(d):
            return None
        if "_src" in reserved and "_dst" in reserved and "_label" in reserved:
            return {"relationship": self.rel(d)}
        if "_id" in reserved and "_label" in reserved:
            return {"node": self.node(d)}
        return {"map": {str(k): self.decode(v) for k, v in d.items()}}

    def properties(self, d):
        return {k: self.decode(v) for k, v in d.items() if not k.startswith("_") and v is not None}

    def node(self, d):
        label = next(v for k, v in d.items() if k.lower() == "_label")
        return {"labels": [label] if label else [], "properties": self.properties(d)}

    def rel(self, d):
        reserved = {k.lower(): v for k, v in d.items() if k.startswith("_")}
        return {
            "type": self.groups.get(reserved["_label"], reserved["_label"]),
            "properties": self.properties(d),
            "start": self.identities.get(internal_key(reserved["_src"])),
            "end": self.identities.get(internal_key(reserved["_dst"])),
        }


GROUP = re.compile(r"CREATE REL TABLE GROUP\s+(\w+)\s*\(")
# A statement that declares a table: it runs before the data, outside the
# data's transaction (old releases refuse DDL inside one).
TABLE = re.compile(r"\s*CREATE\s+(NODE|REL)\s+TABLE\b", re.IGNORECASE)


def package_version(module_name):
    try:
        return importlib.metadata.version(module_name)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def numeric(version):
    """(0, 4, 2) for "0.4.2"; unknown parts end the tuple."""
    parts = []
    for p in version.split("."):
        if not p.isdigit():
            break
        parts.append(int(p))
    return tuple(parts)


def is_null_entity(d):
    """A node or relationship slot an OPTIONAL MATCH left empty: its id is None."""
    if not isinstance(d, dict):
        return d is None
    reserved = {k.lower(): v for k, v in d.items() if k.startswith("_")}
    return "_id" in reserved and reserved["_id"] is None and "_label" in reserved


def internal_key(internal):
    if isinstance(internal, dict):
        lowered = {k.lower(): v for k, v in internal.items()}
        return (lowered.get("table"), lowered.get("offset"))
    return internal


# Kuzu names the stage that failed at the start of its messages.
CLASSES = [
    ("parser exception", "syntax"),
    ("binder exception", "semantic"),
    ("catalog exception", "semantic"),
    ("not implemented", "unsupported"),
    ("runtime exception", "runtime"),
    ("conversion exception", "runtime"),
    ("overflow exception", "runtime"),
    ("copy exception", "runtime"),
    ("interrupted", "timeout"),
]


def classify(message, timeout_ms):
    lowered = message.lower()
    for prefix, cls in CLASSES:
        if lowered.startswith(prefix) or (cls == "timeout" and prefix in lowered):
            if cls == "timeout":
                return {"outcome": "timeout", "after_ms": timeout_ms or 0}
            return error(cls, message)
    return error("internal", message)


if __name__ == "__main__":
    serve(KuzuHost(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""))
