"""graphlancer's engine host for a released Grafeo: its Python package.

Run by graphlancer as `python -c <python_host.py + this file>` inside the
virtualenv of one Grafeo release (the package needs Python 3.12 or later).
The embedded Grafeo built into graphlancer is the zero-setup default; this
host runs the releases after it, and those before it, for bisection.

Its Python binding keeps integers and floats apart (`1.0` is a float),
which its Node package does not, so answers compare exactly.
"""

import grafeo

GID = "gid"

# Grafeo's error codes (`GRAFEO-Q001: ...`) as graphlancer's classes.
CODES = {
    "Q001": "syntax",
    "Q002": "semantic",
    "Q004": "unsupported",
    "Q006": "runtime",
    "V001": "runtime",
    "V002": "runtime",
    "V003": "runtime",
    "V004": "semantic",
    "V005": "semantic",
    "V006": "runtime",
}


class GrafeoHost:
    def __init__(self):
        self.version = getattr(grafeo, "__version__", "unknown")
        self.statements = []
        self.db = grafeo.GrafeoDB()
        self.identities = {}
        self.tx = None

    def load(self, statements):
        self.statements = list(statements)
        self.reload()

    def reload(self):
        self.tx = None
        self.db = grafeo.GrafeoDB()
        for statement in self.statements:
            self.db.execute_cypher(statement)
        self.identities = {}
        if self.statements:
            for row in self.db.execute_cypher(f"MATCH (n) RETURN id(n) AS i, n.{GID} AS g"):
                self.identities[row["i"]] = row["g"]

    def begin(self):
        try:
            self.tx = self.db.begin_transaction()
            return True
        except Exception:
            self.tx = None
            return False

    def undo(self, in_transaction):
        tx, self.tx = self.tx, None
        if in_transaction and tx is not None:
            try:
                tx.rollback()
                return
            except Exception:
                pass  # a failed query may have ended it: reload to be sure
        self.reload()

    def execute(self, query, max_rows, timeout_ms):
        try:
            result = (self.tx or self.db).execute_cypher(query)
            columns = list(result.columns)
            # Rows come back as dicts by column name: two columns of one
            # name would be read as one.
            if len(set(columns)) < len(columns):
                return {"outcome": "undecodable", "message": f"columns share a name: {columns}"}
            rows = []
            for row in result:
                if len(rows) == max_rows:
                    return {"outcome": "toolarge", "max_rows": max_rows}
                rows.append([self.decode(row[c]) for c in columns])
        except Undecodable as e:
            return {"outcome": "undecodable", "message": str(e)}
        except Exception as e:  # the engine's answer, not the host's failure
            return classify(str(e), timeout_ms)
        return {"outcome": "rows", "columns": columns, "rows": rows}

    def decode(self, v):
        if is_scalar(v):
            return scalar(v)
        if isinstance(v, (list, tuple)):
            return [self.decode(x) for x in v]
        if isinstance(v, dict):
            # Nodes, relationships and paths come back as maps with reserved keys.
            if "_id" in v and "_labels" in v:
                return {"node": self.node(v)}
            if "_id" in v and "_type" in v and "_source" in v:
                return {"relationship": self.rel(v)}
            if set(v) == {"nodes", "edges"}:
                return {"path": {
                    "nodes": [self.node(self.stored_node(n)) for n in v["nodes"]],
                    "relationships": [self.rel(self.stored_edge(r)) for r in v["edges"]],
                }}
            return {"map": {str(k): self.decode(x) for k, x in v.items()}}
        raise Undecodable(f"graphlancer cannot decode the {type(v).__name__} value {v!r} yet")

    # Releases before 0.6 answer a path's elements as internal ids.
    def stored_node(self, n):
        if not isinstance(n, int):
            return n
        node = self.db.get_node(n)
        return {"_id": n, "_labels": list(node.labels), **dict(node.properties())}

    def stored_edge(self, r):
        if not isinstance(r, int):
            return r
        edge = self.db.get_edge(r)
        fields = {"_id": r, "_type": edge.edge_type, "_source": edge.source_id, "_target": edge.target_id}
        return {**fields, **dict(edge.properties())}

    def properties(self, d):
        return {k: self.decode(x) for k, x in d.items() if not k.startswith("_") and x is not None}

    def node(self, d):
        # Labels are a set; graphlancer's nodes keep them sorted.
        return {"labels": sorted(d.get("_labels") or []), "properties": self.properties(d)}

    def rel(self, d):
        return {
            "type": d.get("_type"),
            "properties": self.properties(d),
            "start": self.identities.get(d.get("_source")),
            "end": self.identities.get(d.get("_target")),
        }


def classify(message, timeout_ms):
    code = message.split(":", 1)[0].removeprefix("GRAFEO-")
    if code in ("Q003", "T002"):
        return {"outcome": "timeout", "after_ms": timeout_ms or 0}
    return error(CODES.get(code, "internal"), message)


if __name__ == "__main__":
    serve(GrafeoHost())
