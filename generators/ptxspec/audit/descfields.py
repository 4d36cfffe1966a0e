"""wip"""
def check(spec, root):
    return [], 0, []
