"""The operator's floor: each table's running figures against its exact theoretical hold, the
reports by gaming day, and the players' responsible-gaming limits."""
