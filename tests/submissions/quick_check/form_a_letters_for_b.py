# mistake: form A letters reused for form B
# fails: tensor_dtypes, shapes_and_views, autograd, stopping_tracking, training_loop, form_b
# replayed fails:

"""Form A answered right, and the same letters given for form B."""


def answers(form: str = "A") -> dict[int, str]:
    return {1: "c", 2: "a", 3: "d", 4: "b", 5: "c", 6: "a", 7: "b", 8: "d", 9: "c", 10: "b"}
