"""Bets as data: the catalogue of bets and their house pay tables (:mod:`.catalogue`), settling the
offered ones (:mod:`.settle`) and the exact value of every bet from the cards left (:mod:`.exact`)."""
