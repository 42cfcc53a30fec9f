import operator
import time
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict, total=False):
    # Each run's notes are added to the thread's: a run that started from a stale state would drop some.
    notes: Annotated[list[str], operator.add]
    seconds: float


def take_time(state: State) -> dict:
    time.sleep(state.get("seconds", 0))
    return {}


builder = StateGraph(State)
builder.add_node("take_time", take_time)
builder.add_edge(START, "take_time")
builder.add_edge("take_time", END)
graph = builder.compile()
