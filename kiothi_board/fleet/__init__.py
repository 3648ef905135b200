"""The fleet dashboard (L4, beside the API): every board on a venue's MQTT broker in one page."""
