// The refgraph SPARQL console: Yasgui pointed at this server's /sparql, with completions from
// this server only (its ontology and its entities) instead of prefix.cc and Linked Open
// Vocabularies, a gallery of example queries, shareable links, and symbol IRIs linked to their
// /entity pages.
(function () {
  "use strict";
  var endpoint = location.origin + "/sparql";
  var Yasqe = Yasgui.Yasqe;

  function fetchJson(url) {
    return fetch(url).then(function (r) { return r.ok ? r.json() : []; }).catch(function () { return []; });
  }
  function complete(kind, text) {
    return fetchJson("/api/complete?kind=" + kind + "&q=" + encodeURIComponent(text || ""));
  }

  // Same positions and token handling as Yasqe's own completers; only where suggestions come
  // from changes. Registered without adding them to the default list: the list is set below.
  Yasqe.forkAutocompleter("prefixes", {
    name: "rg-prefixes", persistenceId: null,
    get: function () { return complete("prefix", ""); }
  }, false);
  // Suggestions come from this server, cheaply: show them as you type (Yasqe waits for
  // Ctrl-Space by default because its own come from a remote service).
  Yasqe.forkAutocompleter("property", {
    name: "rg-property", autoShow: true,
    get: function (yasqe, token) { return complete("property", token.autocompletionString || token.string); }
  }, false);
  Yasqe.forkAutocompleter("class", {
    name: "rg-class", autoShow: true,
    get: function (yasqe, token) { return complete("class", token.autocompletionString || token.string); }
  }, false);
  Yasqe.registerAutocompleter({
    name: "rg-entity", bulk: false, autoShow: true,
    isValidCompletionPosition: function (yasqe) {
      return /^<pkg:/.test(yasqe.getCompleteToken().string);
    },
    preProcessToken: function (yasqe, token) {
      token.autocompletionString = token.string.replace(/^</, "").replace(/>$/, "");
      return token;
    },
    postProcessSuggestion: function (yasqe, token, suggestion) { return "<" + suggestion + ">"; },
    get: function (yasqe, token) { return complete("entity", token.autocompletionString); }
  }, false);
  Yasqe.defaults.autocompleters = ["variables", "rg-prefixes", "rg-property", "rg-class", "rg-entity"];

  // The first screen answers something: an editor nobody has typed in opens on a refgraph
  // query (the indexed releases), then, once they are known, on the public API of the release
  // indexed last, in its named graph; never on Yasqe's generic `?sub ?pred ?obj`.
  var RELEASES_QUERY = "PREFIX rg: <https://refgraph.dev/ontology#>\n" +
    "# The indexed releases. Run it with the button on the right (or Ctrl-Enter).\n" +
    "SELECT ?release ?package ?version ?symbols WHERE {\n" +
    "  GRAPH ?release { ?release a rg:Release ; rg:package ?package ; rg:version ?version .\n" +
    "    OPTIONAL { ?release rg:symbolCount ?symbols } }\n" +
    "}\nORDER BY ?package ?version\n";
  var GENERIC_QUERY = Yasqe.defaults.value;
  Yasqe.defaults.value = RELEASES_QUERY;
  function displayName(r) {
    try { return decodeURIComponent(r.name); } catch (e) { return r.name; }
  }
  function releaseQuery(r) {
    return "PREFIX rg: <https://refgraph.dev/ontology#>\n" +
      "# The public API of " + displayName(r) + " " + r.version + ": each symbol, its kind and\n" +
      "# signature. Each release is its own named graph; run it with the button on the right\n" +
      "# (or Ctrl-Enter), or pick an example on the left.\n" +
      "SELECT ?name ?kind ?signature ?symbol WHERE {\n" +
      "  GRAPH <" + r.release + "> {\n" +
      "    ?symbol a ?kind ; rg:qualifiedName ?name .\n" +
      "    OPTIONAL { ?symbol rg:signature ?signature }\n" +
      "  }\n" +
      "}\nORDER BY ?name\nLIMIT 100\n";
  }
  function untouched(query) {
    var q = (query || "").trim();
    return q === "" || q === RELEASES_QUERY.trim() || q === (GENERIC_QUERY || "").trim() ||
      /\?sub \?pred \?obj/.test(q);
  }

  var yasgui = new Yasgui(document.getElementById("yasgui"), {
    requestConfig: { endpoint: endpoint, method: "POST" },
    copyEndpointOnNewTab: true,
    endpointCatalogueOptions: { getData: function () { return [{ endpoint: endpoint }]; } },
    yasqe: { autocompleters: Yasqe.defaults.autocompleters.slice() },
    persistenceId: "refgraph-console"
  });
  window.refgraphConsole = yasgui;
  // A tab restored from an older session may point elsewhere: this console queries this server.
  Object.keys(yasgui._tabs).forEach(function (id) { yasgui.getTab(id).setEndpoint(endpoint); });

  function currentTab() { return yasgui.getTab(); }

  // The gallery: click an example to load it into the current tab and run it.
  fetchJson("/api/examples").then(function (examples) {
    var list = document.getElementById("examples");
    examples.forEach(function (ex) {
      var li = document.createElement("li");
      var b = document.createElement("button");
      b.type = "button";
      b.className = "example";
      b.dataset.id = ex.id;
      b.title = ex.description;
      b.textContent = ex.title;
      var small = document.createElement("small");
      small.textContent = ex.description;
      b.appendChild(small);
      b.addEventListener("click", function () {
        var tab = currentTab();
        tab.setQuery(ex.query);
        tab.query();
      });
      li.appendChild(b);
      list.appendChild(li);
    });
  });

  // A tab restored from an older session may still hold the generic query.
  Object.keys(yasgui._tabs).forEach(function (id) {
    var tab = yasgui.getTab(id);
    if (tab && /\?sub \?pred \?obj/.test(tab.getQuery() || "")) { tab.setQuery(RELEASES_QUERY); }
  });

  fetchJson("/api/releases").then(function (releases) {
    var el = document.getElementById("releases");
    el.textContent = releases.length
      ? releases.length + " releases indexed: " + releases.map(function (r) { return displayName(r) + " " + r.version; }).join(", ")
      : "no release indexed yet (refgraph add pkg:pypi/NAME@VERSION)";
    if (!releases.length || new URLSearchParams(location.search).has("query")) { return; }
    var last = releases.reduce(function (a, b) { return (b.ingested_at || "") > (a.ingested_at || "") ? b : a; });
    var tab = currentTab();
    if (tab && untouched(tab.getQuery())) { tab.setQuery(releaseQuery(last)); }
  });

  // Shareable link: the query in the URL; opening it loads the query into a tab.
  document.getElementById("share").addEventListener("click", function () {
    var url = location.origin + "/?query=" + encodeURIComponent(currentTab().getQuery());
    history.replaceState(null, "", url);
    if (navigator.clipboard) { navigator.clipboard.writeText(url).catch(function () {}); }
  });

  // Symbol IRIs are Package URLs, not web addresses (the result table even drops them as
  // links): point them at their entity page.
  new MutationObserver(function () {
    document.querySelectorAll(".yasr a.iri:not([data-entity])").forEach(function (a) {
      a.setAttribute("data-entity", "");
      var iri = a.getAttribute("href") || a.textContent.trim();
      if (/^pkg:[^#\s]+#./.test(iri)) {
        a.setAttribute("href", "/entity?iri=" + encodeURIComponent(iri));
        a.removeAttribute("target");
      }
    });
  }).observe(document.getElementById("yasgui"), { childList: true, subtree: true });
})();
