"""The game at the tables: tables and seats, rounds driven through their steps, and what each
viewer may see of a round."""
