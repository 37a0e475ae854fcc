"""The table's engine, one module per concern (``Game`` in :mod:`mjframework.play.game`).

A hand's state and its steps are split the way Mortal's ``libriichi`` splits
``state/``: one state, with each concern's methods in its own file. Python has
no ``impl`` blocks across files, so each concern is a class that extends the one
below it, in the order they depend on each other; :class:`~mjframework.play.game.Game`
is the top of the stack and adds the hand's setup (wall, deal, exchange, void
suits) and :meth:`~mjframework.play.game.Game.play`:

=============  =====================================================================
``state``      the hand's state (:class:`SeatState` per seat, wall, wildcards, who
               is out or locked), what a step returns (:class:`Discarded`,
               :class:`Claimed`, :class:`Resume`, :class:`HandResult`), seat queries
``relay``      what goes out and comes in: events to the sink (or its counter),
               plugin hooks, asking players, a player leaving
``wins``       may a seat win: contexts, refusals, waits, the claim screen's
               remembered candidates (:class:`SeatWaits`), self-draw wins
``moves``      tiles moving: draws (and flowers set aside), discards
``endings``    settling wins and drawn hands, the next dealer, plugins' endings
``kongs``      making, paying and robbing kongs
``claims``     offering a discard to the others and carrying out the claim
``turn``       the turn loop and one seat's turn
``control``    :class:`HandControl`, the plugins' facade over the hand
=============  =====================================================================

Each step returns a typed result; nothing raises through a plugin's frame to
change the flow. (The deprecated ``HandControl.win`` / ``end_drawn`` /
``rob_kong`` still end the hand from inside a plugin's frame, as documented,
until they are removed; a player leaving with ``leave.hand: abandon`` ends it
from wherever the player was asked.) A method's name is public when
:class:`HandControl` or the stepper uses it: that is the table's documented API.
"""
