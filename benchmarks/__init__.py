"""Speed harness: jaxmarl against its peers, measured side by side (not part of the package).

``python -m benchmarks.run`` runs the suites and writes ``benchmarks/RESULTS.md``; see
``docs/benchmarks.md`` for the method.
"""
