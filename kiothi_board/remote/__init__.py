"""Remote play: two boards, one game (docs/remote.md).

`match` (the actions, the checker) and `opponent` (the other board's side as a player) are
pure; `wire` (paho-mqtt, the topics, presence, invitations) sits with the doors.
"""
