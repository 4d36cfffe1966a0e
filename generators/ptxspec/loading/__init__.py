"""Loading: spec files in, the checked model out.

`tree` reads every YAML file (`yamlsrc`, strict) and checks it against its schema; the `resolve_*`
modules and `expand_variants` turn the documents into the model (`resolve.build_model`), `checks`
checks the whole, and `evidence_files` joins what hardware proved. Imports the model, the
semantics (to check what an instruction file names) and the core.
"""
