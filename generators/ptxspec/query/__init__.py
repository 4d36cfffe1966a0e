"""Questions over the database: `database` (the SQLite file, import-light: the query command starts
here) and the model's own database, built in memory, for `Spec.query`.
"""
