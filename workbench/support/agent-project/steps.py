import operator
import time
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict, total=False):
    # Each step adds its own note: a step run twice (a run replayed from its input) shows twice.
    notes: Annotated[list[str], operator.add]
    seconds: float


def step(number: int):
    def take_a_step(state: State) -> dict:
        time.sleep(state.get("seconds", 0))
        return {"notes": [f"step {number}"]}

    return take_a_step


builder = StateGraph(State)
previous = START
for number in range(1, 5):
    builder.add_node(f"step_{number}", step(number))
    builder.add_edge(previous, f"step_{number}")
    previous = f"step_{number}"
builder.add_edge(previous, END)
graph = builder.compile()
