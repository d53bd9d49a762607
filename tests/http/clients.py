#!/usr/bin/env python3
"""Real clients against `refgraph serve --http`: SPARQLWrapper (PyPI) on /sparql and the official
MCP Python SDK's streamable HTTP client on /mcp. Prints one JSON object with what they got; the
Rust test (tests/it/http.rs) judges it.

    python clients.py sparql http://127.0.0.1:PORT/sparql
    python clients.py mcp http://127.0.0.1:PORT/mcp NAME PACKAGE VERSION
"""
import asyncio
import csv
import io
import json
import sys

RELEASES = """PREFIX rg: <https://refgraph.dev/ontology#>
SELECT ?release ?version WHERE { GRAPH ?release { ?release a rg:Release ; rg:version ?version } }
ORDER BY ?release"""


def sparql(endpoint):
    from SPARQLWrapper import CSV, JSON, XML, SPARQLWrapper

    seen = {}
    client = SPARQLWrapper(endpoint)
    client.setQuery(RELEASES)

    client.setReturnFormat(JSON)
    doc = client.query().convert()
    seen["json"] = [[b["release"]["value"], b["version"]["value"]] for b in doc["results"]["bindings"]]

    client.setReturnFormat(XML)
    dom = client.query().convert()  # xml.dom.minidom.Document
    ns = "http://www.w3.org/2005/sparql-results#"
    rows = []
    for result in dom.getElementsByTagNameNS(ns, "result"):
        row = {}
        for binding in result.getElementsByTagNameNS(ns, "binding"):
            value = binding.getElementsByTagNameNS(ns, "uri") or binding.getElementsByTagNameNS(ns, "literal")
            row[binding.getAttribute("name")] = value[0].firstChild.data
        rows.append([row["release"], row["version"]])
    seen["xml"] = rows

    client.setReturnFormat(CSV)
    text = client.query().convert().decode("utf-8")
    table = list(csv.reader(io.StringIO(text)))
    seen["csv_header"] = table[0]
    seen["csv"] = table[1:]

    # CONSTRUCT: SPARQLWrapper's default XML (RDF/XML for graphs), parsed by rdflib.
    client.setQuery(
        "CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <pkg:pypi/acme-storage@1.0.0> "
        "{ ?s a <https://refgraph.dev/ontology#Class> ; ?p ?o } }"
    )
    client.setReturnFormat(XML)
    graph = client.query().convert()  # rdflib.Graph
    seen["construct_triples"] = len(graph)
    seen["construct_subjects"] = sorted({str(s) for s in graph.subjects()})

    # POST as well (SPARQLWrapper sends a form).
    client.setMethod("POST")
    client.setReturnFormat(JSON)
    client.setQuery("ASK { ?s ?p ?o }")
    seen["ask_post"] = client.query().convert()["boolean"]
    print(json.dumps(seen))


async def mcp_session(url, name, package, version):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    seen = {}
    async with streamable_http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            seen["server"] = init.server_info.name
            tools = await session.list_tools()
            seen["tools"] = sorted(t.name for t in tools.tools)
            result = await session.call_tool(
                "get_api_detail", {"name": name, "package": package, "version": version}
            )
            seen["is_error"] = bool(result.is_error)
            seen["text"] = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
            seen["structured"] = result.structured_content
            missing = await session.call_tool(
                "get_api_detail", {"name": name, "package": package, "version": "0.0.0-not-indexed"}
            )
            seen["missing_is_error"] = bool(missing.is_error)
            seen["missing_text"] = "".join(
                c.text for c in missing.content if getattr(c, "type", "") == "text"
            )
    print(json.dumps(seen))


def main():
    if sys.argv[1] == "sparql":
        sparql(sys.argv[2])
    elif sys.argv[1] == "mcp":
        asyncio.run(mcp_session(*sys.argv[2:6]))
    else:
        sys.exit(f"unknown client {sys.argv[1]}")


if __name__ == "__main__":
    main()
