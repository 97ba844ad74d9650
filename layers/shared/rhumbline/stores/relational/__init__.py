"""The relational store: projects, API tokens, the audit log and graph versions.

SQLite by default (no server), Aurora PostgreSQL when hosted. Modules are imported one by one
(`from rhumbline.stores.relational import tokens`) so a tool loads only what it uses.
"""
