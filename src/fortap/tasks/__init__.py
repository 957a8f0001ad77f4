"""Fine-tuning tasks over the encoder: formula prediction (`formula_prediction` examples, head
and loss; `formula_finetune` training and evaluation; `formula_checkpoint` save/load and the
comparison's encoders; `rule_baseline` the rule-based suggester)."""
