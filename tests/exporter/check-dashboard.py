#!/usr/bin/python3
"""The Grafana dashboard and the alerting rules against what rdmad-exporter exposes.

check-dashboard.py --structure DASHBOARD
    the dashboard as Grafana 10 imports it: a `panels` list, a `datasource`
    variable of type datasource (Prometheus) that every panel and query
    uses as ${datasource}, a `device` query variable; every rdma_* selector
    filtered by device=~"$device". Also checks the metric-name extraction
    on known expressions, so that it cannot pass by finding nothing.
check-dashboard.py --runbook RUNBOOK RULES...
    every alert has a summary and a runbook_url that is a section (## NAME,
    its GitHub anchor) of RUNBOOK, docs/runbook.md in the repository.
check-dashboard.py --metrics SCRAPE [--prometheus URL] DASHBOARD RULES...
    every metric name in every PromQL expression (the dashboard's queries,
    its variables' label_values(), the rules' expr) is one the scrape SCRAPE
    (a /metrics text from the real exporter) holds; with --prometheus, a
    real Prometheus parses each expression (the variables replaced by
    what Grafana sends) and answers "success".
Exit 0 when all holds, 1 with one line per fault.
"""
import json
import re
import sys
import urllib.parse
import urllib.request

RUNBOOK_URL = "https://github.com/rdmad/rdmad/blob/main/docs/runbook.md"
KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left",
            "group_right", "inf", "nan", "atan2"}


def metric_names(expr):
    """The metric names an expression selects (functions, keywords, labels left out)."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)
    e = re.sub(r"\{[^}]*\}", "{}", e)  # label matchers
    e = re.sub(r"\[[^\]]*\]", "[]", e)  # ranges, subqueries
    e = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    names = []
    for m in re.finditer(r"\d[\w.]*|\$\w+|[A-Za-z_:][\w:]*", e):
        tok = m.group(0)
        if tok[0].isdigit() or tok[0] == "$" or tok in KEYWORDS:
            continue
        if re.match(r"\s*\(", e[m.end():]):  # a function or an aggregation
            continue
        names.append(tok)
    return names


def selectors(expr, name):
    """The label matchers ({...}) of each selector of `name` in expr."""
    return [m.group(1) or "" for m in re.finditer(r"\b" + re.escape(name) + r"\b(?:\{([^}]*)\})?", expr)]


SELF_TEST = {
    'rate(rdma_symbol_error_total{device=~"$device"}[$__rate_interval])': ["rdma_symbol_error_total"],
    'count(rdma_state_id{instance=~"$i"} < 4) or vector(0)': ["rdma_state_id"],
    'sum by (device) (increase(a_total[1d])) / on(device) group_left(x) b': ["a_total", "b"],
    'rdma_state_id < 4 and max_over_time(rdma_state_id[6h]) >= 4': ["rdma_state_id", "rdma_state_id"],
    'x{a="rate(y)"} * 8 offset 5m': ["x"],
}


def dashboard_queries(dash):
    """(where, expr) for every query of every panel (rows' panels too) and variable."""
    out = []

    def walk(panels):
        for p in panels:
            for t in p.get("targets", []):
                out.append(("panel '%s' %s" % (p.get("title"), t.get("refId")), t.get("expr", "")))
            walk(p.get("panels", []))

    walk(dash.get("panels", []))
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            q = v.get("query")
            q = q.get("query", "") if isinstance(q, dict) else q or ""
            m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\s*\)\s*", q)
            out.append(("variable $%s" % v.get("name"), m.group(1) if m else q))
    return out


def check_structure(dash, faults):
    for expr, want in SELF_TEST.items():
        got = metric_names(expr)
        if got != want:
            faults.append("metric_names(%r) = %r, expected %r" % (expr, got, want))
    if not isinstance(dash.get("panels"), list) or not dash["panels"]:
        faults.append("no `panels` list")
    if not isinstance(dash.get("schemaVersion"), int) or dash["schemaVersion"] < 36:
        faults.append("schemaVersion %r: Grafana 10 writes 38" % dash.get("schemaVersion"))
    variables = {v.get("name"): v for v in dash.get("templating", {}).get("list", [])}
    ds = variables.get("datasource", {})
    if ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        faults.append("no variable `datasource` of type datasource, query prometheus")
    dev = variables.get("device", {})
    if dev.get("type") != "query" or dev.get("datasource", {}).get("uid") != "${datasource}":
        faults.append("no query variable `device` on ${datasource}")
    uses = lambda obj: obj.get("datasource") == {"type": "prometheus", "uid": "${datasource}"}

    def walk(panels):
        for p in panels:
            if p.get("type") != "row" and not uses(p):
                faults.append("panel '%s': datasource is not ${datasource}" % p.get("title"))
            for t in p.get("targets", []):
                if not uses(t) or not t.get("expr"):
                    faults.append("panel '%s' %s: no expr on ${datasource}" % (p.get("title"), t.get("refId")))
            walk(p.get("panels", []))

    walk(dash.get("panels", []))
    for where, expr in dashboard_queries(dash):
        names = metric_names(expr)
        if not names:
            faults.append("%s: no metric in %r" % (where, expr))
        for name in names:
            if name.startswith("rdma_") and not where.startswith("variable"):
                for matchers in selectors(expr, name):
                    if 'device=~"$device"' not in matchers:
                        faults.append('%s: %s{%s} is not filtered by device=~"$device"' % (where, name, matchers))


def exposed(scrape_text):
    """The metric names of a /metrics text (its samples)."""
    names = set()
    for line in scrape_text.splitlines():
        m = re.match(r"([A-Za-z_:][\w:]*)[{ ]", line)
        if m and not line.startswith("#"):
            names.add(m.group(1))
    return names


def rules_queries(paths):
    import yaml  # python3-yaml

    out = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        for g in doc.get("groups", []):
            for r in g.get("rules", []):
                out.append(("%s: %s" % (path.rsplit("/", 1)[-1], r.get("alert") or r.get("record")), r["expr"]))
    return out


def grafana_substitute(expr):
    """What Grafana sends for the variables: All (.*), the rate interval."""
    expr = expr.replace("$__rate_interval", "1m").replace("$__interval", "1m")
    return re.sub(r"\$\{?(\w+)\}?", ".*", expr)


def main(argv):
    faults = []
    if argv[:1] == ["--structure"] and len(argv) == 2:
        with open(argv[1], encoding="utf-8") as f:
            check_structure(json.load(f), faults)
        checked = "structure"
    elif argv[:1] == ["--runbook"] and len(argv) >= 3:
        with open(argv[1], encoding="utf-8") as f:
            anchors = {re.sub(r"[^a-z0-9_ -]", "", h.strip().lower()).replace(" ", "-")
                       for h in re.findall(r"^#+ (.*)$", f.read(), re.M)}
        n = 0
        for path in argv[2:]:
            import yaml  # python3-yaml

            with open(path, encoding="utf-8") as f:
                doc = yaml.safe_load(f)
            for g in doc.get("groups", []):
                for r in g.get("rules", []):
                    if "alert" not in r:
                        continue
                    n += 1
                    a = r.get("annotations", {})
                    url = a.get("runbook_url", "")
                    if not a.get("summary"):
                        faults.append("%s: no summary" % r["alert"])
                    if not url.startswith(RUNBOOK_URL + "#") or url.split("#", 1)[1] not in anchors:
                        faults.append("%s: runbook_url %r is not a section of %s" % (r["alert"], url, argv[1]))
        checked = "%d alerts, each with a summary and its runbook section" % n
    elif argv[:1] == ["--metrics"] and len(argv) >= 4:
        with open(argv[1], encoding="utf-8") as f:
            names = exposed(f.read())
        rest = argv[2:]
        prometheus = None
        if rest[0] == "--prometheus":
            prometheus, rest = rest[1], rest[2:]
        with open(rest[0], encoding="utf-8") as f:
            queries = dashboard_queries(json.load(f))
        queries += rules_queries(rest[1:])
        metrics = set()
        for where, expr in queries:
            for name in metric_names(expr):
                metrics.add(name)
                # up is Prometheus' own series of every scrape target.
                if name not in names and name != "up":
                    faults.append("%s: %s is not in the exporter's scrape" % (where, name))
            if prometheus:
                url = prometheus + "/api/v1/query?" + urllib.parse.urlencode({"query": grafana_substitute(expr)})
                try:
                    with urllib.request.urlopen(url, timeout=20) as r:
                        status = json.load(r).get("status")
                except urllib.error.HTTPError as e:
                    status = "%s: %s" % (e.code, e.read().decode(errors="replace"))
                if status != "success":
                    faults.append("%s: Prometheus refuses %r: %s" % (where, expr, status))
        checked = "%d expressions, %d metrics, all in the scrape of %d names%s" % (
            len(queries), len(metrics), len(names), ", parsed by Prometheus" if prometheus else "")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for fault in faults:
        print(fault)
    if not faults:
        print("ok: " + checked)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
