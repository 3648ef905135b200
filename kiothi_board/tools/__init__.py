"""Programs built on the layers (beside L4): the match runner, AI tuning, the benchmarks, the
LED guide pictures. `cli.py` imports them statically; nothing in the library imports them.

    tools/match.py           kiothi-board match
    tools/tune.py            python -m kiothi_board.tools.tune
    tools/bench_rules.py     kiothi-board bench rules
    tools/bench_ai.py        kiothi-board bench ai
    tools/bench_guide.py     kiothi-board bench guide
    tools/bench_api.py       kiothi-board bench api
    tools/guide_pictures.py  kiothi-board guide-pictures DIR
"""
