from ptxspec.cli.main import run

run()
