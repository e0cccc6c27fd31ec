"""The sample of vLLM Recipes the tests import: their files, and the commands their site builds."""
