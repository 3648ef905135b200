"""Exhibition mode (L3): a board that runs unattended all day in a museum.

`attendant` decides what the board does (attract, wake, play, count down, reset);
`attract` draws the attract loop and the countdown; `schedule` knows opening and quiet
hours; `stats` tallies the curators' figures from the store; `health` measures the loop and
the machine. `director` wires them to the controller, the sink and the store.
"""
