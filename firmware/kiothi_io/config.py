# Board configuration of the kiothi-io co-processor firmware. Edit, then copy with
# `kiothi-board firmware install`. GPIO numbers are the RP2040's (Raspberry Pi Pico: GP0..GP28).
# The co-processor reads the buttons only: the LED rings hang off the Pi's SPI0 MOSI (GPIO10),
# as in the direct wiring (hardware/README.md). Every header pin but GP0/GP1 is a button.

FIRMWARE_VERSION = (0, 2, 0)

# Pits S1..S10, N1..N10, each a button between the pin and GND (internal pull-up, active low).
# GP0/GP1 are left free for a debug UART.
PIT_PINS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21)

# Control buttons 0..3 (at most 4), same wiring. Fewer entries = fewer controls reported.
CONTROL_PINS = (22, 26, 27, 28)

STATUS_MS = 100  # heartbeat period; the Pi declares the link down after 500 ms of silence
SCAN_MS = 1  # input scan period: raw levels only, the Pi debounces
ERROR_GAP_MS = 100  # at most one ERROR frame per this many ms, so line noise cannot flood the Pi
WATCHDOG_MS = 2000  # reset the RP2040 if the main loop hangs (0 disables)
MAINTENANCE_FLAG = "maintenance"  # a file: present at boot = start the update mode, then delete
