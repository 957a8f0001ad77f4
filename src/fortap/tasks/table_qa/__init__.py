"""Table question answering on HiTab (`table-qa`): a question over a hierarchical table, answered
by choosing cells and one operation that combines them (`operations`), scored by execution
accuracy with HiTab's matching rules (`matching`)."""
