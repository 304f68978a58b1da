"""Every subcommand, in the order `nl2fix --help` lists them."""

ALL: list = []

from nl2fix.cli.rank_cmd import rank_cmd  # noqa: E402
from nl2fix.cli.show_cmd import show_cmd  # noqa: E402

ALL += [rank_cmd, show_cmd]

from nl2fix.cli.report_cmd import report_cmd  # noqa: E402
from nl2fix.cli.compare_cmd import compare_cmd  # noqa: E402

ALL += [report_cmd, compare_cmd]

from nl2fix.cli.dataset_cmd import dataset  # noqa: E402
from nl2fix.cli.prompt_cmd import prompt_cmd  # noqa: E402
from nl2fix.cli.sample_cmd import sample_cmd  # noqa: E402
from nl2fix.cli.export_cmd import export_cmd  # noqa: E402

ALL += [dataset, prompt_cmd, sample_cmd, export_cmd]

from nl2fix.cli.run_cmd import run_cmd  # noqa: E402

ALL += [run_cmd]

from nl2fix.cli.validate_cmd import validate_cmd  # noqa: E402
from nl2fix.cli.check_cmd import check  # noqa: E402

ALL += [validate_cmd]
dataset.add_command(check)
