"""Every subcommand, in the order of the flow (`nl2fix --help` sorts them by name)."""

from nl2fix.cli.check_cmd import check
from nl2fix.cli.compare_cmd import compare_cmd
from nl2fix.cli.dataset_cmd import dataset
from nl2fix.cli.export_cmd import export_cmd
from nl2fix.cli.fix_cmd import fix_cmd
from nl2fix.cli.image_cmd import image
from nl2fix.cli.import_cmd import import_cmd
from nl2fix.cli.prepare_cmd import prepare_cmd
from nl2fix.cli.prompt_cmd import prompt_cmd
from nl2fix.cli.rank_cmd import rank_cmd
from nl2fix.cli.report_cmd import report_cmd
from nl2fix.cli.run_cmd import run_cmd
from nl2fix.cli.sample_cmd import sample_cmd
from nl2fix.cli.show_cmd import show_cmd
from nl2fix.cli.validate_cmd import validate_cmd
from nl2fix.cli.view_cmd import view_cmd

dataset.add_command(check)

ALL = [
    dataset,
    prepare_cmd,
    prompt_cmd,
    sample_cmd,
    import_cmd,
    validate_cmd,
    rank_cmd,
    show_cmd,
    report_cmd,
    compare_cmd,
    export_cmd,
    view_cmd,
    run_cmd,
    fix_cmd,
    image,
]
