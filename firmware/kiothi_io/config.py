# Board configuration of the kiothi-io co-processor firmware. Edit, then copy with mpremote.
# GPIO numbers are the RP2040's (Raspberry Pi Pico: GP0..GP28).

FIRMWARE_VERSION = (0, 1, 0)

# Pits S1..S10, N1..N10, each a button between the pin and GND (internal pull-up, active low).
# GP0/GP1 are left free for a debug UART.
PIT_PINS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21)

# Control buttons 0..3 (at most 4), same wiring. Fewer entries = fewer controls reported.
CONTROL_PINS = (22, 26, 27, 28)

# NeoPixel data pin (through a 3.3 V -> 5 V level shifter) or None when the Pi drives the LEDs.
LED_PIN = None
LEDS_PER_RING = 16  # 12, 16 or 24; must match [leds] leds_per_ring on the Pi
PIXEL_ORDER = "GRB"  # most WS2812B rings

STATUS_MS = 100  # heartbeat period; the Pi declares the link down after 500 ms of silence
SCAN_MS = 1  # input scan period: raw levels only, the Pi debounces
ERROR_GAP_MS = 100  # at most one ERROR frame per this many ms, so line noise cannot flood the Pi
WATCHDOG_MS = 2000  # reset the RP2040 if the main loop hangs (0 disables)
