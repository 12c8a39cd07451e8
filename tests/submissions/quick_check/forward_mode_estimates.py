# mistake: forward mode taken for finite differences
# fails: autograd, form_b

"""The right answers, except question 6 'b' (form A), in both forms."""


def answers(form: str = "A") -> dict[int, str]:
    if form == "B":
        return {1: "a", 2: "c", 3: "b", 4: "d", 5: "a", 6: "d", 7: "c", 8: "b", 9: "b", 10: "d"}
    return {1: "c", 2: "a", 3: "d", 4: "b", 5: "c", 6: "b", 7: "b", 8: "d", 9: "c", 10: "b"}
