"""`sampan helix ...`: the helix module's commands (registered by sampan/cli.py)."""
from .train_cli import add_finetune_parser, add_pretrain_parser


def register(subparsers):
    helix = subparsers.add_parser("helix", help="molecular representation learning (featurize, pretrain, finetune)")
    commands = helix.add_subparsers(dest="helix_command", metavar="COMMAND")
    commands.required = True
    add_pretrain_parser(commands)
    add_finetune_parser(commands)
    return commands
