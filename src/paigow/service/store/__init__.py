"""Storage: the database and its models, migrations, compiled statements, the unit of work, the
writer that runs every write step, and the bus that carries notices between processes."""
