"""Every Cypher statement of subtext lives in this package, parameterised, never built from user text.

Modules by concern: `schema` (constraints and indexes), `owners` (a person's graph and its version),
`documents` (writing one ingested source), `pages` (reading and editing pages), `search`,
`brief`. Each holds its statements as constants and small functions taking a transaction.
"""
