"""What the bench commands share (corpora, a served checkout and its clients, cases, statistics,
checkouts of other revisions). Not a command: run the scripts in bench/."""
