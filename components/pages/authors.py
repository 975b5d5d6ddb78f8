from components.authors import page
from components.guard import run_guarded

run_guarded(page)
