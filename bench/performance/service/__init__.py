"""The local service's own figures, in-process or over loopback: translate throughput, one embedded
request's CPU, glossary creation, document translation. Run as ``python -m bench.performance.service.<name>``.
"""
