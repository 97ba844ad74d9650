"""Team administration: the commands behind `rhumbline token ...` and `rhumbline db ...`, run
in-process on a laptop's embedded store, or in a hosted stack's admin function (invoked with IAM
only, never routed from the public API) with `rhumbline --stack NAME ...`."""
