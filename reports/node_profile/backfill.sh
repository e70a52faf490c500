#!/bin/bash
# The backfill of the ablation subset: NNLQP's ten families whole, then the first 10
# stored models of each other zoo family (time on a shared core is short). Resumable.
cd /work/wt/profile
DB=sqlite:////work/campaign/profile/epyc.db
P=epyc-ort1.31-fp32-t1
run() { env PYTHONPATH=src nice -n 10 taskset -c 0 python -m nnlat dataset profile -p $P --db $DB --json "$@"; }
run -f alexnet,vgg,squeezenet,googlenet,resnet,mobilenetv2,mobilenetv3,mnasnet,efficientnet,nasbench201
for f in vit tinynet seqnet fbnet randdag segnet; do
  done_=$(sqlite3 /work/campaign/profile/epyc.db "select count(*) from measurements ms join models m on m.id=ms.model_id where m.family='$f' and ms.node_profile is not null and ms.node_profile != 'null'")
  left=$((10 - done_))
  [ $left -gt 0 ] && run -f $f -n $left
done
echo ALL DONE
