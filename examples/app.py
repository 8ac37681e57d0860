"""A small module the README's command-line examples work on."""


def greet(name: str) -> str:
    return "hi " + name


def farewell(name: str) -> str:
    return "bye " + name


if __name__ == "__main__":
    print(greet("world"))
