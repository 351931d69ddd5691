def rank(
    queue: list[object], static: dict[int, float], fairshare: dict[int, float],
    now: int, cap: int, per_second: float, age: float, w_fairshare: float,
) -> list[object]: ...
