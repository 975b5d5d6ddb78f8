#!/bin/bash
cd "$(dirname "$0")"
L=$OUT/all.log
sec(){ echo; echo "=================== $1"; }
{
sec versions; python3 -c "import torch,transformers,triton,sys;print(sys.version);print('torch',torch.__version__,'cuda',torch.version.cuda);print('transformers',transformers.__version__,'triton',triton.__version__)"; nvidia-smi -L; echo "NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
for s in oom_big oom_fill oom_other dsa_ce dsa_embed dsa_multinomial ordinal devices fork chat_template ima; do sec "$s"; timeout 120 python3 $s.py 2>&1; echo "[rc=$?]"; done
sec dsa_ce_blocking; CUDA_LAUNCH_BLOCKING=1 timeout 60 python3 dsa_ce.py 2>&1; echo "[rc=$?]"
sec dsa_embed_blocking; CUDA_LAUNCH_BLOCKING=1 timeout 60 python3 dsa_embed.py 2>&1; echo "[rc=$?]"
sec ddp_unused; timeout 120 torchrun --nproc_per_node=1 --master_port 29601 ddp_unused.py 2>&1; echo "[rc=$?]"
sec ddp_unused_detail; TORCH_DISTRIBUTED_DEBUG=DETAIL timeout 120 torchrun --nproc_per_node=1 --master_port 29602 ddp_unused.py 2>&1; echo "[rc=$?]"
sec dup_gpu; timeout 120 torchrun --nproc_per_node=2 --master_port 29603 dup_gpu.py 2>&1; echo "[rc=$?]"
sec ordinal_nproc2; timeout 120 torchrun --nproc_per_node=2 --master_port 29604 -m w1_setdev 2>&1; echo "[rc=$?]"
sec eaddr_two_jobs; SLEEP=25 PIDFILE=/tmp/w1_a.pid timeout 60 torchrun --nproc_per_node=1 --master_port 29605 sleeper.py > /tmp/w1_first.log 2>&1 & sleep 10; SLEEP=1 PIDFILE=/tmp/w1_b.pid timeout 60 torchrun --nproc_per_node=1 --master_port 29605 sleeper.py 2>&1; echo "[rc=$?]"; wait
sec eaddr_leftover_socket; python3 -c "import socket,time;s=socket.socket();s.bind(('0.0.0.0',29606));s.listen();time.sleep(20)" & sleep 2; SLEEP=1 PIDFILE=/tmp/w1_c.pid timeout 60 torchrun --nproc_per_node=1 --master_port 29606 sleeper.py 2>&1; echo "[rc=$?]"; kill %1 2>/dev/null; wait
sec sigkill_external; rm -f /tmp/w1_k.pid; SLEEP=60 PIDFILE=/tmp/w1_k.pid timeout 120 torchrun --nproc_per_node=1 --master_port 29607 sleeper.py > /tmp/w1_kill.log 2>&1 & for i in $(seq 1 60); do [ -s /tmp/w1_k.pid ] && break; sleep 1; done; kill -9 $(cat /tmp/w1_k.pid); wait; cat /tmp/w1_kill.log
sec childfailed_norecord; timeout 120 torchrun --nproc_per_node=1 --master_port 29608 raiser.py 2>&1; echo "[rc=$?]"
sec childfailed_record; USE_RECORD=1 timeout 120 torchrun --nproc_per_node=1 --master_port 29609 raiser.py 2>&1; echo "[rc=$?]"
} > $L 2>&1
echo done
