"""Programs built on the layers (beside L4): the match runner, AI tuning, the benchmarks, the
LED guide pictures, the board's self-test and wiring tools. `cli.py` imports them statically;
nothing in the library imports them.

    tools/match.py           kiothi-board match
    tools/tune.py            python -m kiothi_board.tools.tune
    tools/bench_rules.py     kiothi-board bench rules
    tools/bench_ai.py        kiothi-board bench ai
    tools/bench_guide.py     kiothi-board bench guide
    tools/bench_api.py       kiothi-board bench api
    tools/bench_fleet.py     kiothi-board bench fleet
    tools/soak.py            kiothi-board bench api --soak SECONDS
    tools/guide_pictures.py  kiothi-board guide-pictures DIR
    tools/doctor.py          kiothi-board doctor (doctor_checks.py, doctor_io.py)
    tools/pinout.py          kiothi-board pinout [MAP] (wiring_svg.py: the diagrams)
    tools/bom.py             kiothi-board bom
    tools/firmware.py        kiothi-board firmware install
    tools/leds.py            kiothi-board leds off (the service's ExecStopPost)
"""
