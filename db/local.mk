# db/: the SQLite schema, its numbered migrations and the registry (the only SQL in the tree).
