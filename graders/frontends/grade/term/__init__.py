"""The term: due date and late policy, the roster, the ledger of decisions, and each student's standing."""
