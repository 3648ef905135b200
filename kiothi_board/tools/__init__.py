"""Tools run from the command line: doctor, pin map, bill of materials, firmware."""
