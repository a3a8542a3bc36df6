"""The local service's language data: one JSON file per resource, each naming its sources and date.

The files hold facts taken from the real service's public documentation and its official mock
server (see each file's ``sources``); :mod:`pipeline.service.data.tables` reads them into frozen
records. Edit the files, not code, when the real service adds a language.
"""
