"""The table's languages: messages with stable ids (:mod:`.message`, pure, used by the core) and the
gettext catalogues that turn them into a language's text (:mod:`.catalogue`). See docs/languages.md."""
