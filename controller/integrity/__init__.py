"""The software's own identity (issue 29 item 1; V1-V6 of the compliance reference): what runs, its signature,
the seeded HMAC a lab asks for, and the signed manifest it is compared with (``croupier verify``,
docs/integrity.md).

:mod:`.software` surveys the installed files (the project's, its dependencies' as their distributions record
them, the interpreter's) and the effective config; :mod:`.bytecode` checks that each bytecode cache the
interpreter would load holds its source's code; :mod:`.manifest` writes and checks the signed manifest.
"""
