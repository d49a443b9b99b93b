"""Play one complete game in Python: the Game API, two built-in bots and a policy of your own.

The engine does no I/O and never picks a move itself: you read `game.pending` (what is being
decided) and `game.decider` (by whom), choose one of `game.legal_moves()` and play it. Out-of-turn
moves (calling UNO, catching someone who did not) are in `game.table_moves()`. The game holds no
launcher: `table.play(move)` makes the move and then the launcher presses it leads to
(`game.play` alone would stop at the first press, a chance node to feed `fired:N`).
"""

from game import Decision, Game, Move, PlayMove, Table, UnoMove
from game.bots import Bot, GreedyBot, RandomBot


def my_policy(game: Game, seat: int) -> Move:
    """Play the first card that is not a wild; otherwise whatever comes first (press, colour...)."""
    moves = game.legal_moves()
    if game.pending is Decision.TURN:
        for move in moves:
            if isinstance(move, PlayMove) and not move.card.is_wild:
                return move
    return moves[0]


def call_uno_and_catch(table: Table, bots: dict[int, Bot]) -> None:
    """Out of turn: I (seat 0) always call UNO; the bots call and catch as they like."""
    game = table.game
    for move in game.table_moves():
        if move not in game.table_moves():  # an earlier move just now closed it
            continue
        seat = game.seat_of(move)
        if seat == 0 and isinstance(move, UnoMove):
            table.play(move)
        elif seat in bots and bots[seat].table_move(game, seat, [move]) is not None:
            table.play(move)


def name(game: Game, seat: int | None) -> str:
    return "nobody" if seat is None else game.names[seat]


def report_round(game: Game) -> None:
    winner = name(game, game.round_winner)
    print(f"round {game.round_number}: won by {winner}, scores {game.scores}")


bots: dict[int, Bot] = {1: GreedyBot(seed=1), 2: RandomBot(seed=2)}
with Table.new("attack", ["me", "greedy", "random"], seed=2024, options={"target": 200}) as table:
    game = table.game
    while not game.is_game_over():
        if game.is_round_over():
            report_round(game)
            table.play("next-round")
            continue
        seat = game.decider
        table.play(bots[seat].choose(game, seat) if seat in bots else my_policy(game, seat))
        if not game.is_round_over():
            call_uno_and_catch(table, bots)
    report_round(game)
    presses = sum(1 for event in game.events if event["type"] == "hit")
    print(f"winner: {name(game, game.winner)} after {game.round_number} rounds, {presses} presses")
