timezone=$(date +%z)
vllm_version=$(python3 -c 'import importlib.metadata as m; print(m.version("vllm"))')
vllm_rbln_version=$(python3 -c 'import importlib.metadata as m; print(m.version("vllm-rbln"))')
bench() {  # input tokens, output tokens, concurrent requests
  for count in "$1" "$2" "$3"; do
    case ${count} in
      ""|0*|*[!0-9]*|??????????*)
        printf 'bench: %s is not a count from 1 to 999999999 (input tokens, output tokens, concurrent requests)\n' "${count}" >&2
        return 2 ;;
      *) ;;
    esac
  done
  vllm bench serve \
    --backend openai-chat \
    --base-url http://127.0.0.1:46025 \
    --tokenizer /tmp/benchrun-bc1jrnm3/tokenizer \
    --endpoint /v1/chat/completions \
    --model skt/A.X-K2-NVFP4 \
    --trust-remote-code \
    --dataset-name random \
    --random-input-len "$1" \
    --random-output-len "$2" \
    --max-concurrency "$3" \
    --num-prompts "$((8 * $3))" \
    --ignore-eos \
    --save-result \
    --result-dir /tmp/benchrun-bc1jrnm3/out \
    --metadata \
        recipe=A.X-K2 strategy=aggregated-data-expert-parallel target=Latency sku=RBLN-CR13 npus=8 \
        input_len="$1" output_len="$2" timezone="${timezone}" vllm="${vllm_version}" vllm_rbln="${vllm_rbln_version}" \
        selection=lmcache=rds,prefix_caching=on_sub_block,spec_decode=eagle3,reasoning_parser=on,tool_calling=on commands=sha256:b2b90a988e07acaa
}
bench 32 8 2
