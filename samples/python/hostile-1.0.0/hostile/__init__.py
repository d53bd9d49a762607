"""hostile: a release whose modules misbehave when imported, to prove refgraph's run-time
inspection contains them. Each module writes its own namespace through globals(), so the
static reading leaves its names unknown and --inspect imports it. Never import this package
outside refgraph's sandbox."""
